package campaign

import "encoding/json"

func decodeSmall(data []byte, v any) error { return json.Unmarshal(data, v) }

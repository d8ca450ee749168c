package lmp

// PairRequest is the optional body of POST /internal/pair/new. TTL is in
// seconds; zero means the server's default (P-5).
type PairRequest struct {
	TTL float64 `json:"ttl,omitempty"`
}

// QRPayload is the JSON a pairing QR code holds (P-2). FP is the SHA-256
// fingerprint of the server's TLS certificate, or "" without TLS.
type QRPayload struct {
	V     int    `json:"v"`
	URL   string `json:"url"`
	Token string `json:"token"`
	Name  string `json:"name"`
	FP    string `json:"fp"`
}

// PairResponse answers POST /internal/pair/new: the QR payload plus the
// token's expiry in float epoch seconds.
type PairResponse struct {
	QRPayload
	ExpiresAt float64 `json:"expires_at"`
}

// Health is the body of GET /health (T-2): exactly {"ok":true,"v":1}.
type Health struct {
	OK bool `json:"ok"`
	V  int  `json:"v"`
}

// HTTPError is the JSON body of every non-2xx answer from the HTTP
// endpoints (pairing, devices, the mock Hermes driver API).
type HTTPError struct {
	Error string `json:"error"`
}

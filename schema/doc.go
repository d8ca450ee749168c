// Package schema holds the JSON Schemas (draft 2020-12) of LMP v1, which are
// the single source of truth for the wire, and a validator built on them.
//
// The schemas are embedded: s2c/<type>.json and c2s/<type>.json for every
// frame type, s2c/envelope.json and c2s/envelope.json, s2c/any.json and
// c2s/any.json (dispatch by type, accepting unknown types: V-1),
// http/*.json for the pairing and health endpoints, driver/*.json for the
// mock Hermes driver API, and common.json for shared definitions. Every
// *.json file under this directory is compiled, with no network or file
// access: a $ref that names anything not embedded fails to compile.
//
// ValidateFrame checks one WebSocket frame, picking the schema by direction
// and type; ValidateDocument checks an HTTP or driver body by schema name.
// Both return one Error per problem, each naming the frame, the JSON pointer
// and the rule broken. Rule IDs come from the "x-rule" annotation of the
// deepest schema on the path to the failing keyword. Beyond the schemas the
// validator checks that event_id names the frame's own seq (E-3), that the
// input is UTF-8 JSON (T-3) and that integers are written as integer
// literals, and it never panics on arbitrary bytes.
//
// ValidateFrame runs Go code generated from the frame schemas
// (validate_gen.go; compiled.go says how), which gives the same errors as
// the schemas interpreted by jsonschema/v5 at a fraction of the cost; the
// interpreted form remains the reference, for documents and for the rare
// frames the generated code leaves to it.
package schema

package store

// unixModes is false on Windows: a file's mode bits there say only whether
// it is read-only, and access is the ACL's matter. A directory under the
// user's profile (the default, %LocalAppData%) is the user's alone.
const unixModes = false

//go:build !windows

package store

// unixModes says the data directory's mode bits decide who may enter it.
const unixModes = true

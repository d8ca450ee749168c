// Package packaging holds no code: its tests check how the kit ships. The
// release builds (.goreleaser.yaml), built for every target by goreleaser, and
// go vet for Windows and macOS, the
// container image files (Dockerfile, deploy/) and the reverse proxy they
// configure, the GitHub Action (action.yml) and the ClusterFuzzLite setup
// (.clusterfuzzlite/).
package packaging

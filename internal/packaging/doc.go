// Package packaging holds no code: its tests check how the kit ships. The
// release builds (.goreleaser.yaml) and a cross-compile of every target, the
// container image files (Dockerfile, deploy/) and the reverse proxy they
// configure, the GitHub Action (action.yml) and the ClusterFuzzLite setup
// (.clusterfuzzlite/).
package packaging

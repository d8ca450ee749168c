module github.com/loomi-lmp/lmpkit

go 1.26

require (
	github.com/coder/websocket v1.8.15
	github.com/mdp/qrterminal/v3 v3.2.1
	github.com/onsi/ginkgo/v2 v2.34.0
	github.com/onsi/gomega v1.44.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	go.etcd.io/bbolt v1.5.0
	go.yaml.in/yaml/v3 v3.0.6
)

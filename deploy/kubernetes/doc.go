// Package kubernetes holds tzctx's Kubernetes manifests (the YAML files
// beside this one, applied with `kubectl apply -k deploy/kubernetes`) and
// the test that decodes each of them strictly into the Kubernetes API
// types and checks that they agree with each other, with the
// Containerfile and Makefile, and with tzctx's configuration loader. It
// has no code of its own.
package kubernetes

# SwiftCam: `make demo` runs the demo pipeline, `make test` runs every test.
# Both install what they need first (Debian packages, only those missing).
SWIFT ?= swift
RELEASE_BIN := .build/release

.PHONY: deps build release demo test test-asan test-hardware install-plugin clean

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

demo: release
	$(RELEASE_BIN)/swiftcam demo

test: deps
	@bash scripts/test.sh

test-asan: deps
	@bash scripts/test.sh asan

clean:
	rm -rf .build

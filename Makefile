# The two commands of the quick start: `make run` and `make test` (unit,
# store and end-to-end tests, then the dashboard's in headless Chromium).
# Both install missing Debian packages first (tools/install-deps).

DB ?= ./uptake.db
LISTEN ?= 127.0.0.1:8080
SWIFT ?= swift

.PHONY: run test build release deps format lint clean

run: release
	.build/release/uptaked --db $(DB) --listen $(LISTEN)

# SwiftPM 6.3.1 once died of a segmentation fault while planning a fresh
# clone's build (CI, session 22), a crash in the tool and not in our code;
# a build that dies by a signal is run once more, as it is safe to repeat.
test: deps
	$(SWIFT) build --build-tests || { status=$$?; [ $$status -gt 128 ] || exit $$status; \
	  echo "swift build died by signal $$((status - 128)); building again" >&2; \
	  $(SWIFT) build --build-tests; }
	SWIFT=$(SWIFT) tools/check-test-discovery
	$(SWIFT) test --skip-build
	UPTAKED=.build/debug/uptaked UPTAKE=.build/debug/uptake tools/browser-tests

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

deps:
	@tools/install-deps

format:
	$(SWIFT) format -i -r Sources Tests Plugins Package.swift

lint:
	$(SWIFT) format lint -r Sources Tests Plugins Package.swift

clean:
	rm -rf .build

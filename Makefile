# room — common tasks. `make test` is what CI runs.
MVN ?= mvn -B -ntp

.PHONY: test build install run demo bench bench-quick format clean axe screenshots

test: axe
	$(MVN) verify
	$(MVN) -q jar:jar install:install
	$(MVN) -f sample-webapp/pom.xml verify
	$(MVN) -f spring-boot-starter/pom.xml verify

# axe-core for the browser tests' accessibility audit (src/test/java/dev/room/e2e). Without npm the
# audit is skipped locally; under CI=true the tests fail instead.
AXE_VERSION ?= 4.14.1
axe:
	@if [ -f target/axe/node_modules/axe-core/axe.min.js ]; then :; \
	elif command -v npm >/dev/null 2>&1; then \
	  npm install --prefix target/axe --no-save --no-audit --no-fund --loglevel=error axe-core@$(AXE_VERSION); \
	else echo "npm not found: the accessibility audit will be skipped (apt-get install npm)"; fi

# The page screenshots in docs/ (README), taken by the browser tests (WaitingPageAccessibilityTest:
# every page state at 640 px in light colours, and the skip offer at 320 px). CI=true makes a
# missing Chromium, chromedriver or axe-core fail instead of skipping, so no stale PNG survives.
screenshots: axe
	rm -rf target/screenshots
	CI=true $(MVN) -Dspotless.check.skip=true -Dtest=WaitingPageAccessibilityTest \
	  -Dsurefire.failIfNoSpecifiedTests=false test
	rm -f docs/waiting-page-*.png
	for f in target/screenshots/waiting-page-*.png; do \
	  case "$$f" in *-dark.png) ;; *) cp "$$f" docs/ ;; esac; \
	done

build:
	$(MVN) -DskipTests package

install:
	$(MVN) -DskipTests install

format:
	$(MVN) spotless:apply

# The sample shop behind a waiting room (sample-webapp/, issue 5) on http://localhost:8080, with
# its dashboard at /admin and metrics at /metrics. `make demo` is the one to start with: a small
# room, slow pages and a built-in crowd of simulated visitors, so a line is there to watch within
# seconds. `make run` is the plain sample; options: make run ARGS="--capacity 5 --work 2s"
# (or java -jar sample-webapp/target/room-sample.jar --help).
#
# Both build only what changed: the jars are file targets that depend on the sources, so a second
# run with nothing changed starts in about a second. Maven shows its progress (-B -ntp: no colour
# codes, no download bars). `exec` hands the terminal to Java, so Ctrl-C or a SIGTERM stops the
# sample gracefully (it exits 0) and make has nothing to report.
LIB_STAMP = target/.room-installed
SAMPLE_JAR = sample-webapp/target/room-sample.jar
LIB_SOURCES := pom.xml $(shell find src/main -type f 2>/dev/null)
SAMPLE_SOURCES := sample-webapp/pom.xml $(shell find sample-webapp/src/main -type f 2>/dev/null)
BUILD_MVN = $(MVN) -Dstyle.color=never -Dmaven.test.skip=true


# The library, installed in ~/.m2 for the sample (tests are not compiled: `make test` does that).
$(LIB_STAMP): $(LIB_SOURCES)
	@echo "==> Building and installing the library (the first run downloads dependencies: a few minutes)"
	$(BUILD_MVN) install
	@touch $@

$(SAMPLE_JAR): $(LIB_STAMP) $(SAMPLE_SOURCES)
	@echo "==> Building the sample shop"
	$(BUILD_MVN) -f sample-webapp/pom.xml package
	@touch $@

sample-jar: $(SAMPLE_JAR)

demo: $(SAMPLE_JAR)
	cd sample-webapp && exec java -cp target/room-sample.jar dev.room.sample.Demo $(ARGS)

run: $(SAMPLE_JAR)
	cd sample-webapp && exec java -jar target/room-sample.jar $(ARGS)

clean:
	$(MVN) clean

# Benchmarks (benchmarks/, issues 6 and 16). `bench` is the full run (about 30 min on 2 cores:
# the engine at 10k-10M queued, heap at 10M, HTTP, the Redis poll at 10k-1M beside the in-memory
# line, the 10-minute soak) and writes benchmarks/RESULTS.md and benchmarks/scaling.png; its
# first table is issue 16's goals, each with its command and a computed verdict. `bench-quick`
# runs every benchmark once, short (for CI), and writes benchmarks/target/quick/ so the committed
# results stay as they are. BENCH_REPO=/some/dir installs the library into that Maven repository
# instead of ~/.m2 (e.g. make bench-quick BENCH_REPO=/tmp/m2). The Redis part needs redis-server
# on the PATH; without it the Redis rows say so and are missed.
BENCH_JAR = benchmarks/target/benchmarks.jar
BENCH_MAIN = java -cp $(BENCH_JAR) dev.room.bench.BenchDriver
BENCH_MVN = $(MVN) $(if $(BENCH_REPO),-Dmaven.repo.local=$(BENCH_REPO))
.PHONY: bench-jar

bench-jar:
	$(BENCH_MVN) -q -DskipTests install
	$(BENCH_MVN) -q -f benchmarks/pom.xml package

# The library as it was when issue 16 was filed (its "today"), built from this repository's history
# into benchmarks/target/before/: RedisPollBench runs its whole Redis poll path beside this
# build's in the same run. Without the history (a source tarball) the Redis "before" falls back to
# this build's one-script-a-poll path, and RESULTS.md says so.
BEFORE_REV ?= 9571ae2
BEFORE_DIR = benchmarks/target/before
.PHONY: bench-before-jar
bench-before-jar:
	@if git cat-file -e $(BEFORE_REV)^{commit} 2>/dev/null; then \
	  rm -rf $(BEFORE_DIR) && mkdir -p $(BEFORE_DIR)/src && \
	  git archive $(BEFORE_REV) pom.xml src | tar -x -C $(BEFORE_DIR)/src && \
	  $(BENCH_MVN) -q -f $(BEFORE_DIR)/src/pom.xml -DskipTests -Dspotless.check.skip=true package && \
	  cp $(BEFORE_DIR)/src/target/room-*.jar $(BEFORE_DIR)/room.jar && \
	  echo $(BEFORE_REV) > $(BEFORE_DIR)/REV; \
	else echo "no commit $(BEFORE_REV) in this checkout: the Redis before path is this build's"; fi

bench: bench-jar bench-before-jar
	$(BENCH_MAIN) --out benchmarks/RESULTS.md --chart benchmarks/scaling.png --command "make bench"

bench-quick: bench-jar bench-before-jar
	$(BENCH_MAIN) --quick --out benchmarks/target/quick/RESULTS.md \
	  --chart benchmarks/target/quick/scaling.png --command "make bench-quick"

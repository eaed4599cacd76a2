# room — common tasks. `make test` is what CI runs.
MVN ?= mvn -B -ntp

.PHONY: test build install run bench bench-quick format clean axe

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

build:
	$(MVN) -DskipTests package

install:
	$(MVN) -DskipTests install

format:
	$(MVN) spotless:apply

# The sample shop behind a waiting room (sample-webapp/, issue 5) on http://localhost:8080, with
# its dashboard at /admin and metrics at /metrics. Options: make run ARGS="--capacity 5 --work 2s"
# (or java -jar sample-webapp/target/room-sample.jar --help).
run:
	$(MVN) -q -DskipTests install
	$(MVN) -q -f sample-webapp/pom.xml -DskipTests package
	cd sample-webapp && java -jar target/room-sample.jar $(ARGS)

clean:
	$(MVN) clean

# Benchmarks (benchmarks/, issue 6). `bench` is the full run (about 10 min on 2 cores) and writes
# benchmarks/RESULTS.md and benchmarks/scaling.png; `bench-quick` runs every benchmark once
# (under 3 min, for CI) and writes benchmarks/target/quick/ so the committed results stay as they are.
BENCH_JAR = benchmarks/target/benchmarks.jar
BENCH_MAIN = java -cp $(BENCH_JAR) dev.room.bench.BenchDriver
.PHONY: bench-jar

bench-jar:
	$(MVN) -q -DskipTests install
	$(MVN) -q -f benchmarks/pom.xml package

bench: bench-jar
	$(BENCH_MAIN) --out benchmarks/RESULTS.md --chart benchmarks/scaling.png --command "make bench"

bench-quick: bench-jar
	$(BENCH_MAIN) --quick --out benchmarks/target/quick/RESULTS.md \
	  --chart benchmarks/target/quick/scaling.png --command "make bench-quick"

# room — common tasks. `make test` is what CI runs.
MVN ?= mvn -B -ntp

.PHONY: test build install run bench bench-quick format clean

test:
	$(MVN) verify

build:
	$(MVN) -DskipTests package

install:
	$(MVN) -DskipTests install

format:
	$(MVN) spotless:apply

clean:
	$(MVN) clean

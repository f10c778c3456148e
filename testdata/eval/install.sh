#!/usr/bin/env bash
# The toolchains the evaluation suite and its polyglot exercises run
# (internal/eval's TestEveryTaskFailsWithoutAFixAndPassesWithOne,
# e2e/eval_test.go): Go comes with the repository's own toolchain; Python 3,
# g++, node with npm, cargo, a JDK, and the JUnit Platform's console launcher
# with AssertJ and JUnit 4 (the polyglot runner's Java path: javac and the
# launcher, as gradle's wrapper would download gradle) come from Debian's
# packages when missing.
set -euo pipefail
need=()
command -v python3 >/dev/null || need+=(python3)
command -v g++ >/dev/null || need+=(g++)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v cargo >/dev/null || need+=(cargo)
command -v javac >/dev/null || need+=(default-jdk-headless)
[ -f /usr/share/java/junit-platform-console-standalone.jar ] || need+=(junit5)
[ -f /usr/share/java/assertj-core.jar ] || need+=(libassertj-core-java)
[ -f /usr/share/java/junit4.jar ] || need+=(junit4)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi
python3 --version; g++ --version | head -1; node --version; cargo --version; javac -version

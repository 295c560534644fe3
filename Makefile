# memory.reap_on_kill: kernel series, guest harness, tests.
# Run 'make help' for the targets.

SHELL := /bin/bash
S := scripts

.PHONY: help demo bench bench-oomd bench-curves bench-overhead baseline check check-debug fresh-check distro-check mutation-check build-matrix stress deps tree kernel kernel-stock tests \
	shell guest-run export-series checkpatch series deb systemd systemd-export-series \
	clean distclean

help:
	@echo "make demo           build, boot, print the reclaim table and one systemd-oomd round (minutes)"
	@echo "make check          build, boot and run every test; ends with 'N passed, N failed'"
	@echo "make check-debug    the same on a KASAN/lockdep/kmemleak kernel (own build dir)"
	@echo "make fresh-check    make check on a clean clone in a fresh Debian 12 chroot (root; FRESH_WORKTREE=1)"
	@echo "make distro-check   the README's Debian 13 install in a disk image, booted with its own systemd (root)"
	@echo "make mutation-check remove each safety protection (tests/mutations), rebuild, see its test fail"
	@echo "make build-matrix   compile the series with the feature, futexes, 32-bit compat off"
	@echo "make stress         the stress tests for longer, several seeds (STRESS_SECONDS, STRESS_SEEDS)"
	@echo "make bench          the full benchmark matrix; CSV and PNG under build/bench/"
	@echo "make bench-oomd     only its systemd-oomd rounds (OOMD_ROUNDS, 3), table and chart"
	@echo "make bench-curves   only the reap's curves on KBASE: sizes x workers, 1-64 victims, latency"
	@echo "make bench-overhead only the kill hook's cost on KBASE against its stock kernel, two boots each"
	@echo "make baseline       upstream cgroup selftests on a stock build of the same config"
	@echo "make shell          interactive shell in the guest (Ctrl-A X quits)"
	@echo "make guest-run CMD='...'  run one command in the guest, with its exit status"
	@echo "make tree           compose build/linux-KBASE: pristine source + its series + our files"
	@echo "make export-series  write build/linux-KBASE's commits back to its series"
	@echo "make kernel | kernel-stock | tests   build pieces"
	@echo "make checkpatch     checkpatch.pl --strict on the series and our files"
	@echo "make systemd        patched systemd 262 and 257: fetch, build, boot as PID 1, their tests and libcgroup's"
	@echo "make systemd-export-series  write build/systemd-SD_BASE/src's commits back to its series"
	@echo "make series         upstream-ready series + cover letters in build/series-{mainline,6.12}/, built patch by patch"
	@echo "make deb            Debian packages of the patched 6.12 kernel in build/deb/, boot-checked"
	@echo ""
	@echo "KBASE=mainline (default) or KBASE=6.12 picks the kernel base of the"
	@echo "single-kernel targets (tree, kernel, shell, stress, baseline, series, ...);"
	@echo "make check checks both (CHECK_KBASES='6.12' for one)."
	@echo "SD_BASE=262 (default, the upstream target) or SD_BASE=257 (Debian 13's"
	@echo "backport) picks the systemd base of systemd-export-series and of guest-run.sh --systemd."

demo:
	$(S)/bench.sh demo

bench:
	$(S)/bench.sh full

bench-oomd:
	$(S)/bench.sh oomd

bench-curves:
	$(S)/bench.sh curves

bench-overhead:
	$(S)/bench.sh overhead

baseline:
	$(S)/baseline.sh

check:
	$(S)/check.sh

check-debug:
	CHECK_FLAVOUR=debug $(S)/check.sh

fresh-check:
	$(S)/fresh-check.sh

distro-check:
	$(S)/distro-check.sh

mutation-check:
	$(S)/mutation-check.sh

build-matrix: deps
	$(S)/build-matrix.sh

stress:
	$(S)/stress.sh

deps:
	$(S)/deps.sh

tree: deps
	$(S)/prepare-tree.sh

kernel: deps
	$(S)/build-kernel.sh

kernel-stock: deps
	$(S)/build-kernel.sh stock

tests: kernel
	$(S)/build-tests.sh

shell: deps kernel tests
	$(S)/guest-run.sh --shell

guest-run: deps kernel tests
	$(S)/guest-run.sh -- bash -c '$(CMD)'

export-series:
	$(S)/export-series.sh

checkpatch: tree
	$(S)/checkpatch.sh

# Both bases unless KBASE names one: the mainline series, then the backport.
series: deps
	for b in $${KBASE:-mainline 6.12}; do KBASE=$$b $(S)/make-series.sh || exit; done

deb: deps
	$(S)/make-deb.sh

systemd: deps kernel tests
	$(S)/check-systemd.sh

systemd-export-series:
	$(S)/systemd-export-series.sh

clean:
	rm -rf build/obj build/tests-* build/guest build/results-* build/logs

distclean:
	$(S)/check-tree.sh all
	rm -rf build

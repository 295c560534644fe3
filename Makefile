# SPDX-License-Identifier: GPL-2.0
# memory.reap_on_kill: kernel series, guest harness, tests.
# Run 'make help' for the targets.

SHELL := /bin/bash
S := scripts

.PHONY: help demo bench bench-oomd bench-curves bench-overhead baseline check check-debug fresh-check distro-check mutation-check build-matrix stress deps tree kernel kernel-stock tests \
	shell guest-run export-series checkpatch series deb systemd systemd-export-series \
	clean distclean

# dur NAME: a duration from docs/results/durations, as the documents quote it.
dur = $(shell scripts/docs-figures.sh value dur.$(1) 2>/dev/null || echo '?')

help:
	@echo "Targets (durations: cold, on a two-core machine without KVM, approximate;"
	@echo "from docs/results/durations). [root]: installs Debian packages or uses chroots."
	@echo ""
	@echo "Try"
	@echo "  make demo           build 7.2, boot it, print the kill-to-free table and one systemd-oomd round [root] ($(call dur,demo), estimated)"
	@echo "  make shell          interactive shell in the guest (Ctrl-A X quits) [root]"
	@echo "  make guest-run CMD='...'  run one command in the guest, with its exit status [root]"
	@echo ""
	@echo "Test"
	@echo "  make check          build both kernels and systemd, run every test; ends 'N passed, N failed' [root] ($(call dur,check))"
	@echo "  make check-debug    the same on a KASAN/lockdep/kmemleak kernel (own build dir) [root] ($(call dur,check-debug), debug kernels built)"
	@echo "  make stress         the stress tests for longer, several seeds (STRESS_SECONDS, STRESS_SEEDS) [root] ($(call dur,stress) per kernel)"
	@echo "  make mutation-check remove each safety protection (tests/mutations), rebuild, see its test fail [root] ($(call dur,mutation-check) per base, kernels built)"
	@echo "  make baseline       upstream cgroup selftests on a stock build of the same config [root]"
	@echo "  make fresh-check    make check on a clean clone in a fresh Debian 12 chroot (FRESH_WORKTREE=1) [root] ($(call dur,fresh-check))"
	@echo "  make distro-check   the install steps on a Debian 13 disk image, booted with its own systemd [root] ($(call dur,distro-check))"
	@echo "  make systemd        patched systemd 262 and 257: build, boot as PID 1, their tests and libcgroup's [root] ($(call dur,systemd))"
	@echo ""
	@echo "Benchmark (results: build/bench/, and docs/results/ rendered into README.md and docs/)"
	@echo "  make bench          the whole kill-to-free matrix on both kernels, curves, cost, oomd [root] ($(call dur,bench), kernels built)"
	@echo "                      BENCH_KBASES=mainline (or 6.12) runs it on one kernel"
	@echo "                      BENCH_ARGS='...' replaces the matrix's reap_bench options, e.g. '-s 1024 -n 64 -f'"
	@echo "  make bench-curves   only the reap's curves on KBASE: sizes x workers, 1-64 victims, latency [root] ($(call dur,bench-curves))"
	@echo "  make bench-oomd     only the systemd-oomd rounds (OOMD_ROUNDS, 3), table and chart [root] ($(call dur,bench-oomd), estimated)"
	@echo "  make bench-overhead only the kill hook's cost on KBASE against its stock kernel [root] (a few minutes, kernels built)"
	@echo ""
	@echo "Develop"
	@echo "  make deps           install what the build and the guest need from Debian's archive [root]"
	@echo "  make tree           compose build/linux-KBASE: pristine source + its series + our files"
	@echo "  make export-series  write build/linux-KBASE's commits back to its series"
	@echo "  make kernel | kernel-stock | tests   build pieces [root: deps]"
	@echo "  make build-matrix   compile the series with the feature, futexes, 32-bit compat off ($(call dur,build-matrix))"
	@echo "  make checkpatch     checkpatch.pl --strict on the series and our files"
	@echo "  make series         upstream-ready series + cover letters in build/series-{mainline,6.12}/, built patch by patch ($(call dur,series) the first time)"
	@echo "  make systemd-export-series  write build/systemd-SD_BASE/src's commits back to its series"
	@echo "  make clean          remove kernel objects, test builds, guest state, results and logs (keeps sources, ccache, systemd)"
	@echo "  make distclean      remove build/ entirely (refuses while a tree holds unexported work)"
	@echo ""
	@echo "Package"
	@echo "  make deb            Debian 13 packages of the patched 6.12 kernel in build/deb/, boot-checked, and a"
	@echo "                      systemd 257 source package [root]; DEB_CONFIG=cloud (default: virtio/NVMe/EFI,"
	@echo "                      for KVM and cloud VMs) or DEB_CONFIG=debian (Debian's config; hours)"
	@echo ""
	@echo "Variables"
	@echo "  KBASE=mainline (default; Linux 7.2.x, Debian sid's newest linux-source-7.x) or KBASE=6.12"
	@echo "      picks the kernel of the single-kernel targets (tree, kernel, shell, stress, baseline, series, ...);"
	@echo "      make check checks both (CHECK_KBASES='6.12' for one)."
	@echo "  SD_BASE=262 (default, the upstream target) or SD_BASE=257 (Debian 13's backport) picks the"
	@echo "      systemd base of systemd-export-series and of guest-run.sh --systemd."
	@echo "More: README.md, docs/."

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

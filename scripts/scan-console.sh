#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print kernel reports (panic, Oops, BUG, WARNING, KASAN, lockdep, hung or
# stalled tasks, leaks) found in console logs or dmesg dumps; exit 1 if any.
#   scan-console.sh FILE...
pattern='Kernel panic|Oops[:]|BUG[:]|kernel BUG at|WARNING[:]|KASAN[:]|UBSAN[:]|KFENCE[:]'
pattern+='|general protection fault|possible circular locking|inconsistent lock state'
pattern+='|possible recursive locking|suspicious RCU usage|DEBUG_LOCKS_WARN_ON'
pattern+='|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|rcu_sched self-detected stall'
pattern+='|rcu: INFO: .* detected stalls|unreferenced object 0x|list_add corruption|list_del corruption'
pattern+='|ODEBUG[:]|Bad page state|Bad rss-counter'
found=$(grep -aE -- "$pattern" "$@" 2>/dev/null)
[ -z "$found" ] && exit 0
printf '%s\n' "$found"
exit 1

# SPDX-License-Identifier: GPL-2.0
"""The fault-injection hooks: added to the suite's test file for the time
of a faults build only, so that the series carries no test hook.

The build takes workqueue.kunit_fault=CASE:POINT on the kernel command
line and makes that case fail an assertion at POINT: "start", the end of
wq_test_init(), before the case runs, or "state", the first time the case
holds global state (a narrowed wq_unbound_cpumask, an offline CPU, a
pinned task, kthreads kept awake, round robin forced, a workqueue
attribute stored).  Without the parameter it logs each point a case
reaches, which tells the tools what to inject.  After every case's exit
it logs, as "wq_test:" lines, whatever the exit left changed."""

from typing import List, Tuple

from . import source, stamps
from .errors import WqKunitError

START, STATE = 'start', 'state'
POINTS = (START, STATE)
PARAM = 'workqueue.kunit_fault'
# What the kernel logs: a point reached, a fault injected.
REACHED = 'wq_test_fault: reaches '
INJECTED = 'injected fault at '

_FIELD = ('\tstruct workqueue_struct *wqs[2];', '\tunsigned int reached;\t\t/* fault points met */\n')

_FUNCTION = '''\
/* wq-kunit faults: not part of the series. */
static char wq_test_fault_at[128];
module_param_string(kunit_fault, wq_test_fault_at, sizeof(wq_test_fault_at), 0444);

static void wq_test_fault(struct kunit *test, const char *point)
{
	struct wq_test_ctx *ctx = test->priv;
	unsigned int bit = strcmp(point, "start") ? 2 : 1;
	size_t n = strlen(test->name);

	if (!ctx || (ctx->reached & bit))
		return;
	ctx->reached |= bit;
	if (!wq_test_fault_at[0]) {
		pr_info("wq_test_fault: reaches %s:%s\\n", test->name, point);
		return;
	}
	if (!strncmp(wq_test_fault_at, test->name, n) && wq_test_fault_at[n] == ':' &&
	    !strcmp(wq_test_fault_at + n + 1, point))
		KUNIT_ASSERT_TRUE_MSG(test, false, "injected fault at %s:%s", test->name, point);
}

'''

_CHECK = '''\
	/* wq-kunit faults: what this exit left changed. */
	cpumask_copy(&ctx->found->runner, &current->cpus_mask);
	wq_test_state_diff(ctx->found, test->name, NULL);
'''

# (what the hook follows, what it adds): each anchor must occur exactly
# once in the test file, or the hooks and the file have drifted apart.
_HOOKS: List[Tuple[str, str]] = [
	_FIELD,
	('\ttest->priv = ctx;\n', '\twq_test_fault(test, "start");\n'),
	('\tcpumask_set_cpu(cpu, ctx->offline);\n', '\twq_test_fault(test, "state");\n'),
	('\tKUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, mask), 0);\n',
	 '\twq_test_fault(test, "state");\n'),
	('\t\twake_up_process(task);\n\t}\n', '\twq_test_fault(test, "state");\n'),
	('\tWRITE_ONCE(wq_debug_force_rr_cpu, true);\n', '\twq_test_fault(test, "state");\n'),
	('"%s: %s=%s", wq->name, attr->attr.name, val);\n', '\twq_test_fault(test, "state");\n'),
	('"cannot set wq_unbound_cpumask to %*pbl",\n\t\t\t    cpumask_pr_args(mask));\n',
	 '\twq_test_fault(test, "state");\n'),
	('\twq_test_restore_ordering(ctx->found);\n', _CHECK),
]
_BEFORE_FUNCTION = 'static void wq_test_keep_awake(struct kunit *test, const struct cpumask *cpus)\n'


def add(text: str) -> str:
	"""@text, the test file, with the hooks in it."""
	for anchor, addition in _HOOKS + [(_BEFORE_FUNCTION, '')]:
		found = text.count(anchor)
		if found != 1:
			first = anchor.strip().splitlines()[0]
			raise WqKunitError(f'fault hooks: "{first}" occurs {found} times in the test '
					   f'file, not once: update tools/wqkunit/fault_hooks.py')
	for anchor, addition in _HOOKS:
		if anchor == _FIELD[0]:
			at = text.index(anchor)
			at = text.index('\n', at) + 1
		else:
			at = text.index(anchor) + len(anchor)
		text = text[:at] + addition + text[at:]
	at = text.index(_BEFORE_FUNCTION)
	return text[:at] + _FUNCTION + text[at:]


# The edit a faults build makes: its key changes with this file.
EDIT = source.Edit(stamps.of_files([__file__]),
		   lambda original: add(original.decode()).encode())

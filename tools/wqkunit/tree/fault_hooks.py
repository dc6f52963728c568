# SPDX-License-Identifier: GPL-2.0
"""The fault-injection hooks: added to the suite's files for the time of
a faults build only, so that the series carries no test hook.

The build takes workqueue_kunit_test.kunit_fault=CASE:POINT on the kernel
command line and makes that case fail an assertion at POINT: "start",
the end of wq_test_init(), before the case runs, or "state", the first
time the case
holds global state (a narrowed wq_unbound_cpumask, an offline CPU, a
pinned task, kthreads kept awake, round robin forced, a workqueue
attribute stored).  Without the parameter it logs each point a case
reaches, which tells the tools what to inject.  After every case's undos
have run it logs, as "wq_test:" lines, whatever they left changed."""

import os
from typing import Dict, List, Tuple

from ..base import digest_stamps, repo_paths
from ..base.errors import WqKunitError
from . import kernel_trees, series

START, STATE = 'start', 'state'
POINTS = (START, STATE)
# The parameter's prefix is the name of the object that defines it.
PARAM = 'workqueue_kunit_test.kunit_fault'
# What the kernel logs: a point reached, a fault injected.
REACHED = 'wq_test_fault: reaches '
INJECTED = 'injected fault at '

# Declared in every file a hook calls it from, after the suite's header.
_INCLUDE = '#include "workqueue_kunit.h"\n'
_DECLARATION = '/* wq-kunit faults: not part of the series. */\n' \
	'void wq_test_fault(struct kunit *test, const char *point);\n'

# "start" comes first in every case run: it forgets the points the last
# run reached.
_FUNCTION = '''\
/* wq-kunit faults: not part of the series. */
static char wq_test_fault_at[128];
module_param_string(kunit_fault, wq_test_fault_at, sizeof(wq_test_fault_at), 0444);
static unsigned int wq_test_fault_reached;
static struct wq_test_state wq_test_fault_found;

void wq_test_fault(struct kunit *test, const char *point)
{
	unsigned int bit = strcmp(point, "start") ? 2 : 1;
	size_t n = strlen(test->name);

	if (bit == 1) {
		wq_test_fault_reached = 0;
		wq_test_state_take(&wq_test_fault_found);
	}
	if (wq_test_fault_reached & bit)
		return;
	wq_test_fault_reached |= bit;
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
	/* wq-kunit faults: what the case's undos left changed since its start. */
	wq_test_state_diff(&wq_test_fault_found, test->name, NULL);
'''

_STATE = '\twq_test_fault(test, "state");\n'

# Per file of the suite, (what the hook follows, what it adds): each
# anchor must occur exactly once in its file, or the hooks and the file
# have drifted apart.
HOOKS: Dict[str, List[Tuple[str, str]]] = {
	series.TEST_FILE: [
		(_INCLUDE, _DECLARATION),
		('\ttest->priv = ctx;\n', '\twq_test_fault(test, "start");\n'),
		('\tcpumask_set_cpu(cpu, ctx->offline);\n', _STATE),
		('\tKUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, mask), 0);\n', _STATE),
		('\t\twake_up_process(task);\n\t}\n', _STATE),
		('"cannot set wq_unbound_cpumask to %*pbl",\n\t\t\t    cpumask_pr_args(mask));\n',
		 _STATE),
		('"the case left the kernel changed: see the lines above");\n', _CHECK),
		('"%s: %s=%s", wq_test_name(wq), attr->attr.name, val);\n', _STATE),
		('\twq_test_set_force_rr(true);\n', _STATE),
	],
}
# The function goes before this one, in the test file.
_BEFORE_FUNCTION = 'void wq_test_keep_awake(struct kunit *test, const struct cpumask *cpus)\n'


def add(path: str, text: str) -> str:
	"""@text, the suite's file @path, with the hooks in it."""
	extra = [(_BEFORE_FUNCTION, '')] if path == series.TEST_FILE else []
	for anchor, _ in HOOKS[path] + extra:
		found = text.count(anchor)
		if found != 1:
			first = anchor.strip().splitlines()[0]
			raise WqKunitError(f'fault hooks: "{first}" occurs {found} times in {path}, '
					   f'not once: update {os.path.relpath(__file__, repo_paths.REPO)}')
	for anchor, addition in HOOKS[path]:
		at = text.index(anchor) + len(anchor)
		text = text[:at] + addition + text[at:]
	if extra:
		at = text.index(_BEFORE_FUNCTION)
		text = text[:at] + _FUNCTION + text[at:]
	return text


def _edit(path: str) -> kernel_trees.Edit:
	return kernel_trees.Edit(digest_stamps.of_files([__file__]),
			   lambda original: add(path, original.decode()).encode())


# The edits a faults build makes, per file: their key changes with this file.
EDITS: Dict[str, kernel_trees.Edit] = {path: _edit(path) for path in HOOKS}

# SPDX-License-Identifier: GPL-2.0
"""LAVA jobs for the suite: the engine KernelCI's and Linaro's labs boot
real boards with.  A job boots a kernel the tools built (or a lab's build
for a board) with the suite built in, and turns the KTAP output into one
LAVA test case per KUnit case: a 'monitors' test, one monitor per suite,
which needs no shell on the board.  lava_helper.py (run by Debian's
/usr/bin/python3, with lava-common) validates the jobs against LAVA's own
schema and reads lava-run's results."""

import json
import os
import re
from typing import Dict, List, Optional

from ..base import repo_paths
from ..tree import series

# The suites, in the order the console prints them (link order).
SUITES = ('workqueue_percpu', 'workqueue_power_efficient', 'workqueue_unbound',
	  'workqueue_hotplug', 'workqueue_topology', 'workqueue_extra')
HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lava_helper.py')
PACKAGE = 'lava-common'
RUNNER = 'lava-dispatcher'
EXAMPLES = os.path.join(repo_paths.KUNIT_DIR, 'lava')
# Where a lab finds the board builds, in the committed examples.
DEFAULT_URL = 'https://lab.example/wq-kunit'

STAMP = r'(?:\[ *\d+\.\d+\] )?'
# The result group is 'not ok', 'ok ' (a lookahead saw '# SKIP': LAVA maps
# whole groups, so a skip needs a value of its own) or 'ok'.  Each pattern
# starts at a newline and ends with a lookahead: consuming the newline
# would hide the next line's result.
RESULT = (r'(?P<result>not ok|ok (?=\d+ [^\s#]+ # SKIP)|ok) ?\d+ '
	  r'(?P<test_case_id>[^\s#]+)(?: # [^\r\n]*)?(?=[\r\n])')
FIXUP = {'ok': 'pass', 'not ok': 'fail', 'ok ': 'skip'}

# Real big.LITTLE boards in LAVA's device types: (dtb in a 6.12 tree,
# 6.1's, kernel image type, u-boot commands, arch).
BOARDS = {
	'odroid-xu3': ('samsung/exynos5422-odroidxu3.dtb', 'exynos5422-odroidxu3.dtb',
		       'zimage', 'ramdisk', 'arm'),
	'rk3399-rock-pi-4b': ('rockchip/rk3399-rock-pi-4b.dtb', 'rockchip/rk3399-rock-pi-4b.dtb',
			      'image', 'ramdisk', 'arm64'),
	'juno-uboot': ('arm/juno-r2.dtb', 'arm/juno-r2.dtb', 'image', 'ramdisk-tftp', 'arm64'),
}
DEVICES = ('qemu',) + tuple(BOARDS)


def monitor(suite: str) -> dict:
	"""One LAVA test suite per KUnit suite: from its '# Subtest:' line to
	its own result, a case per result line four spaces in (a case with
	parameters is one case, failed if any parameter failed)."""
	return {'name': suite,
		'start': rf'# Subtest: {re.escape(suite)}(?=[\r\n])',
		'end': rf'\n{STAMP}(?:not )?ok \d+ {re.escape(suite)}(?: # [^\r\n]*)?(?=[\r\n])',
		'pattern': rf'\n{STAMP} {{4}}{RESULT}',
		'fixupdict': dict(FIXUP)}


def _job(device_type: str, name: str, version: str, deploy: dict, boot: dict,
	 context: Optional[dict] = None) -> dict:
	job = {'device_type': device_type, 'job_name': name, 'visibility': 'public',
	       'priority': 'medium',
	       'timeouts': {'job': {'minutes': 20}, 'action': {'minutes': 5},
			    'connection': {'minutes': 2}}}
	if context:
		job['context'] = context
	job['metadata'] = {'wq-kunit.kernel': version,
			   'wq-kunit.series': os.path.relpath(series.listing(version), repo_paths.REPO)}
	job['actions'] = [{'deploy': deploy}, {'boot': boot},
			  {'test': {'timeout': {'minutes': 10},
				    'monitors': [monitor(s) for s in SUITES]}}]
	return job


def qemu_job(version: str, kernel: str, dtb: Optional[str], cpus: int = 8,
	     kernel_args: str = '') -> dict:
	"""A job for LAVA's qemu device type: the tools' 32-bit ARM build
	(@kernel), their big.LITTLE board (@dtb) or QEMU's own without."""
	args = ' '.join(filter(None, [kernel_args, 'kunit.enable=1 console=ttyAMA0',
				      'kunit_shutdown=poweroff']))
	images = {'kernel': {'url': f'file://{kernel}', 'image_arg': f"-kernel {{kernel}} -append '{args}'"}}
	if dtb:
		images['dtb'] = {'url': f'file://{dtb}', 'image_arg': '-dtb {dtb}'}
	return _job('qemu', f'wq-kunit {version} arm, {cpus} CPUs, built in', version,
		    {'to': 'tmpfs', 'timeout': {'minutes': 2}, 'images': images},
		    {'method': 'qemu', 'media': 'tmpfs', 'timeout': {'minutes': 2}},
		    {'arch': 'arm', 'cpu': 'cortex-a15', 'machine': 'virt', 'memory': 1024,
		     'extra_options': [f'-smp {cpus}', '-no-reboot']})


def board_job(device: str, version: str, url: str = DEFAULT_URL) -> dict:
	"""A job for a real board of LAVA's @device type, its kernel and its
	own device tree fetched from @url/VERSION-DEVICE/ (a lab's build: see
	docs/lava.md), the suite built in."""
	new, old, image, commands, _ = BOARDS[device]
	dtb = old if version == '6.1' else new
	base = f'{url}/{version}-{device}'
	kernel = 'zImage' if image == 'zimage' else 'Image'
	return _job(device, f'wq-kunit {version} {device}, built in', version,
		    {'to': 'tftp', 'timeout': {'minutes': 5},
		     'kernel': {'url': f'{base}/{kernel}', 'type': image},
		     'dtb': {'url': f'{base}/{os.path.basename(dtb)}'}},
		    {'method': 'u-boot', 'commands': commands, 'timeout': {'minutes': 5}},
		    {'extra_kernel_args': 'kunit.enable=1 kunit_shutdown=poweroff'})


def qemu_device(cpus: int = 8) -> dict:
	"""The device lava-run boots the qemu job on: what lava-server renders
	from qemu.jinja2 for the job's context, with kunit.py's -nodefaults and
	serial console instead of its network card (which needs ipxe-qemu)."""
	return {'available_architectures': ['arm'],
		'constants': {'kernel-start-message': 'Linux version [0-9]',
			      'shutdown-message': 'The system is going down for reboot NOW',
			      'default-shell-prompt': 'lava-test: # ', 'spawn_maxread': '4092',
			      'failure_retry': 1, 'boot_retry': None,
			      'posix': {'lava_test_results_dir': '/lava-%s',
					'lava_test_sh_cmd': '/bin/sh',
					'lava_test_shell_file': '~/.bashrc'}},
		'parameters': {},
		'actions': {'deploy': {'connections': {'serial': None},
				       'methods': {'image': {'parameters': {}}}},
			    'boot': {'connections': {'serial': None},
				     'methods': {'qemu': {'parameters': {
					     'command': 'qemu-system-arm',
					     'options': ['-nodefaults', '-machine virt', '-cpu cortex-a15',
							 '-m 1024', '-nographic', '-serial stdio',
							 '-monitor none'],
					     'extra': [f'-smp {cpus}', '-no-reboot']}}}}},
		'timeouts': {'actions': {}, 'connections': {}}}


def _key(key: str) -> str:
	return key if re.fullmatch(r'[A-Za-z_][\w.-]*', key) else json.dumps(key)


def _scalar(value) -> str:
	if value is None:
		return 'null'
	if isinstance(value, bool):
		return 'true' if value else 'false'
	if isinstance(value, int):
		return str(value)
	return json.dumps(value)		# a YAML double-quoted scalar


def _emit(node, depth: int) -> List[str]:
	pad, out = '  ' * depth, []
	items = node.items() if isinstance(node, dict) else ((None, v) for v in node)
	for key, value in items:
		head = f'{pad}{_key(key)}:' if key is not None else f'{pad}-'
		if isinstance(value, (dict, list)) and value:
			sub = _emit(value, depth + 1)
			if key is None:
				out.append(f'{head} {sub[0].lstrip()}')
				out += sub[1:]
			else:
				out += [head] + sub
		else:
			out.append(f'{head} {_scalar(value)}')
	return out


def yaml(data: dict, comment: str = '') -> str:
	"""@data as block YAML (strings double-quoted), after @comment."""
	lines = [f'# {l}' if l else '#' for l in comment.splitlines()]
	return '\n'.join(lines + _emit(data, 0)) + '\n'


def fold(statuses: Dict[str, str]) -> Dict[str, str]:
	"""The tools' results (suite.case[.param] -> kunit.py status) per case,
	as the job reports them: failed if any parameter failed, skipped if all
	skipped."""
	cases: Dict[str, List[str]] = {}
	for name, status in statuses.items():
		suite, case = name.split('.')[:2]
		cases.setdefault(f'{suite}.{case}', []).append(
			{'PASS': 'pass', 'SKIP': 'skip'}.get(status, 'fail'))
	return {name: 'fail' if 'fail' in got else 'skip' if set(got) == {'skip'} else 'pass'
		for name, got in cases.items()}


def compare(lava: Dict[str, str], tools: Dict[str, str]) -> List[str]:
	"""Each case whose result differs, or that one side lacks."""
	return [f'{name}: lava {lava.get(name, "missing")}, tools {tools.get(name, "missing")}'
		for name in sorted(set(lava) | set(tools)) if lava.get(name) != tools.get(name)]

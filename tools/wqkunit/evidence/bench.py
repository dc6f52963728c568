# SPDX-License-Identifier: GPL-2.0
"""Phase times of the suite, per kernel, as medians over a few runs."""

import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError
from ..base.process_tree import run_tree
from ..build import runner
from ..build.kunitpy import Kunit
from ..configs import boot_configs
from ..tree import series

STAMP = re.compile(r'^\[\s*(\d+\.\d+)\]\s*(.*)$')
RESULT = re.compile(r'^\s*(?:not )?ok \d+ ')


def guest_times(console: str) -> Dict[str, float]:
	"""From a console with printk times: seconds from kernel start to the
	first KTAP line and to the last result, and the suite between them."""
	first = last = None
	for line in console.splitlines():
		match = STAMP.match(line)
		if not match:
			continue
		stamp, text = float(match.group(1)), match.group(2)
		if first is None and text.startswith('KTAP version'):
			first = stamp
		if first is not None and RESULT.match(text):
			last = stamp
	if first is None or last is None:
		raise WqKunitError('no timestamped KTAP output in the console')
	return {'boot to first result': first, 'boot to last result': last,
		'suite in the guest': last - first}


def _timed(fn: Callable[[], object]) -> float:
	start = time.monotonic()
	fn()
	return time.monotonic() - start


def _plain_kunitconfig(directory: str) -> str:
	path = os.path.join(directory, 'plain.kunitconfig')
	with open(path, 'w', encoding='utf-8') as f:
		f.write('CONFIG_KUNIT=y\n')
	return path


def _children_cpu() -> float:
	usage = resource.getrusage(resource.RUSAGE_CHILDREN)
	return usage.ru_utime + usage.ru_stime


def _cold(kunit: Kunit, jobs: int, log: str) -> Tuple[float, float]:
	"""A build from nothing, ccache bypassed: (wall, CPU) seconds."""
	shutil.rmtree(kunit.build_dir, ignore_errors=True)
	cpu = _children_cpu()
	wall = kunit.build(jobs, log, cold=True)
	return wall, _children_cpu() - cpu


def measure(tree: str, version: str, runs: int, jobs: int,
	    say: Callable[[str], None], cold_runs: int = 1) -> Dict[str, float]:
	"""Every phase of @version, in seconds (medians of @runs where cheap,
	of @cold_runs for the cold builds, which alternate with plain ones)."""
	root = os.path.join(repo_paths.cache_dir(), 'bench', version)
	shutil.rmtree(root, ignore_errors=True)
	os.makedirs(root)
	log = os.path.join(root, 'build.log')
	ours = Kunit(tree, os.path.join(root, 'suite'))
	# What a kernel developer gets from kunit.py run --arch=arm alone.
	plain = Kunit(tree, os.path.join(root, 'plain'), qemu_config=None,
		      kunitconfigs=(_plain_kunitconfig(root),))
	kunit_py = os.path.join(tree, 'tools', 'testing', 'kunit', 'kunit.py')
	phases: Dict[str, float] = {}

	def configure() -> None:
		with open(log, 'w', encoding='utf-8') as f:
			if run_tree([sys.executable, kunit_py, 'config'] + ours.common, cwd=tree,
				    stdout=f, stderr=subprocess.STDOUT):
				raise WqKunitError(f'kunit.py config failed (log: {log})')

	say(f'{version}: configure')
	phases['configure'] = _timed(configure)
	cold: Dict[str, List[Tuple[float, float]]] = {'suite': [], 'plain': []}
	for run in range(cold_runs):
		for name, kunit in (('plain', plain), ('suite', ours)):
			say(f'{version}: cold build {run + 1} of {cold_runs}, {name} kernel')
			cold[name].append(_cold(kunit, jobs, log))
	for i, what in enumerate(('', ' CPU')):
		suite = statistics.median(c[i] for c in cold['suite'])
		base = statistics.median(c[i] for c in cold['plain'])
		phases[f'cold build{what}'] = suite
		phases[f'cold build{what}, plain KUnit kernel'] = base
		phases[f'suite build{what} over plain'] = suite / base - 1
	warm: List[float] = []
	incremental: List[float] = []
	boots_secs: List[float] = []
	req = runner.BuildRequest(version, jobs=jobs)
	default = boot_configs.select('default', version)[0]
	ex = runner.ExecRequest([default], 300, live=False, log_prefix='bench.')
	guest: Dict[str, List[float]] = {}
	for run in range(runs):
		say(f'{version}: run {run + 1} of {runs}: warm, incremental, boot')
		warm.append(ours.build(jobs, log))
		for name in series.FILES:
			os.utime(os.path.join(tree, name))
		incremental.append(ours.build(jobs, log))
		# Through the runner: the same verdict, board check included.
		done = runner.boot_once(ours, req, ex, default, 8, root, say)
		boots_secs.append(done.seconds)
		if not done.judged.passed:
			runner.explain([done], say)
			raise WqKunitError(f'{version}: a measured boot failed: '
					   f'{done.judged.kind} (console: {done.console})')
		with open(done.console, encoding='utf-8', errors='replace') as f:
			whole = f.read()
		for key, value in guest_times(whole).items():
			guest.setdefault(key, []).append(value)
	phases['warm rebuild, nothing changed'] = statistics.median(warm)
	phases['rebuild after touching the test file'] = statistics.median(incremental)
	phases['boot, QEMU start to exit'] = statistics.median(boots_secs)
	for key, values in guest.items():
		phases[key] = statistics.median(values)
	shutil.rmtree(os.path.join(root, 'plain'), ignore_errors=True)
	return phases


def table(results: Dict[str, Dict[str, float]]) -> str:
	versions = list(results)
	keys = list(next(iter(results.values())))
	rows = ['| phase | ' + ' | '.join(versions) + ' |', '|---|' + '---|' * len(versions)]
	for key in keys:
		cells = [f'{results[v][key] * 100:+.1f}%' if key.endswith('over plain')
			 else f'{results[v][key]:.1f} s' for v in versions]
		rows.append(f'| {key} | ' + ' | '.join(cells) + ' |')
	return '\n'.join(rows) + '\n'

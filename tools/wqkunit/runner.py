# SPDX-License-Identifier: GPL-2.0
"""Build a kernel once, boot it many times: the one runner behind run,
check, soak, mutate and bench, driven by a build and an exec request as
kunit.py's own KunitBuildRequest and KunitExecRequest are."""

import collections
import contextlib
from dataclasses import dataclass, field
import hashlib
import os
import re
import shutil
import time
from typing import Callable, Dict, Iterator, List, Optional, Sequence

from . import assess, boots, kernels, lock, packages, paths, results, series, source
from . import arches, board as board_mod
from .errors import StaleKernel, WqKunitError
from .kunit_runner import Kunit

# KTAP lines as the guest prints them, after the printk time stamp if any.
STAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')
SUBTEST = re.compile(r'^( *)# Subtest: (\S+)')
RESULT = re.compile(r'^( *)((?:not )?ok) \d+ (\S+)(.*)$')


class Live:
	"""Each result line, named in full (suite.case.param), as the guest
	prints it: a hang shows where it is.  Only shown, never counted:
	kunit.py's parser counts."""

	def __init__(self, label: str) -> None:
		self.label = label
		self.subtests: Dict[int, str] = {}

	def __call__(self, line: str) -> None:
		line = STAMP.sub('', line.rstrip())
		match = SUBTEST.match(line)
		if match:
			depth = len(match.group(1))
			self.subtests = {d: n for d, n in self.subtests.items() if d < depth}
			self.subtests[depth] = match.group(2)
			return
		match = RESULT.match(line)
		if match:
			depth = len(match.group(1))
			name = [n for d, n in sorted(self.subtests.items()) if d <= depth]
			print(f'  {self.label} {match.group(2)} {".".join(name + [match.group(3)])}'
			      f'{match.group(4)}', flush=True)


def say(msg: str) -> None:
	print(f'wq-kunit: {msg}', flush=True)


# Wall seconds per phase of this invocation, and how often each ran.
PHASES: Dict[str, float] = collections.defaultdict(float)
PHASE_RUNS: collections.Counter = collections.Counter()


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
	start = time.monotonic()
	try:
		yield
	finally:
		PHASES[name] += time.monotonic() - start
		PHASE_RUNS[name] += 1


@dataclass
class BuildRequest:
	version: str
	tree: Optional[str] = None		# a user's tree, else Debian's in the cache
	debug: bool = False			# kunitconfig plus kunit/debug.config
	build_dir: Optional[str] = None
	jobs: int = os.cpu_count() or 1
	broken: Optional[str] = None		# a C file appended for this build only
	arch: str = arches.DEFAULT		# kunit.py --arch

	@property
	def label(self) -> str:
		"""The name of its build and log directories in the cache."""
		base = f'tree-{hashlib.sha1(self.tree.encode()).hexdigest()[:12]}' \
			if self.tree else self.version
		if self.arch != arches.DEFAULT:
			base += f'-{self.arch}'
		return base + ('-debug' if self.debug else '')

	@property
	def build_path(self) -> str:
		return os.path.abspath(self.build_dir) if self.build_dir else \
			os.path.join(paths.cache_dir(), 'build', self.label)

	@property
	def logs(self) -> str:
		return os.path.join(paths.cache_dir(), 'logs', self.label)

	@property
	def lock_path(self) -> str:
		"""One lock per source tree: its build directories share its files."""
		name = self.label[:-len('-debug')] if self.debug else self.label
		return os.path.join(paths.cache_dir(), 'locks', f'{name}.lock')


@dataclass
class ExecRequest:
	boots: List[boots.Boot]
	timeout: int = 300
	smps: Sequence[int] = (8,)
	repeat: int = 1
	kunit_args: List[str] = field(default_factory=list)
	json: Optional[str] = None		# copy of kunit.py's JSON, per boot if several
	live: bool = True			# print each case result as the guest does
	log_prefix: str = ''			# of each console and JSON in the logs
	keep_failed: bool = True		# a copy of a failed boot's console
	board: Optional[str] = board_mod.BIG_LITTLE	# the guest's board; None: any


@dataclass
class Boot:
	"""One boot's verdict, and where its console is."""
	name: str
	label: str
	judged: assess.Assessment
	console: str
	seconds: float


@dataclass
class Outcome:
	"""What one kernel's boots gave: their verdicts, and a summary line each."""
	boots: List[Boot] = field(default_factory=list)
	lines: List[str] = field(default_factory=list)
	tree: str = ''

	@property
	def counts(self) -> results.Counts:
		total = results.Counts()
		for b in self.boots:
			total.add(b.judged.counts)
		return total

	def last(self, name: str) -> Boot:
		return [b for b in self.boots if b.name == name][-1]


@contextlib.contextmanager
def prepared(req: BuildRequest, log: Callable[[str], None] = say) -> Iterator[Kunit]:
	"""The tree of @req with the series (and @req.broken) in it, locked,
	and a Kunit on its build directory."""
	series.patches()
	arch = arches.get(req.arch)
	needed = packages.BUILD + arch.packages + ([] if req.tree else [kernels.package(req.version)])
	with phase('packages'):
		packages.ensure(needed, log)
	build_dir = req.build_path
	configs = list(arch.kunitconfigs) + ([paths.DEBUG_CONFIG] if req.debug else [])
	with lock.held(req.lock_path, log):
		with phase('prepare'):
			tree = source.user_tree(req.tree, log) if req.tree else \
				source.cache_tree(req.version, log)
		# Debian's tree is ours, a git work tree: a build with the
		# inputs of the last one can be skipped.  A user's is built.
		kunit = Kunit(tree, build_dir, kunitconfigs=configs, arch=arch,
			      reuse=not req.tree)
		with source.appended(tree, series.TEST_FILE, req.broken,
				     os.path.join(build_dir, 'kernel', 'workqueue.o')):
			yield kunit


def variant_name(kconfig: Sequence[str]) -> str:
	"""The suffix of a Kconfig variant's build directory, from its lines:
	CONFIG_WQ_POWER_EFFICIENT_DEFAULT=y gives wq_power_efficient_default."""
	names = []
	for line in kconfig:
		symbol, _, value = line.partition('=')
		name = symbol.removeprefix('CONFIG_').lower()
		names.append(name if value == 'y' else f'{name}={value}')
	return ','.join(names)


def run(req: BuildRequest, ex: ExecRequest, log: Callable[[str], None] = say) -> Outcome:
	"""Build @req once per Kconfig variant its boots need, each variant
	in a build directory of its own; boot each of @ex.boots @ex.repeat
	times with each CPU count of @ex.smps."""
	out = Outcome()
	logs = req.logs
	os.makedirs(logs, exist_ok=True)
	prepare = PHASES['prepare']
	with prepared(req, log) as base:
		out.tree = base.tree
		prepare = PHASES['prepare'] - prepare
		for kconfig, group in boots.by_build(ex.boots):
			kunit = base.variant(variant_name(kconfig)) if kconfig else base
			extra = f' with {" ".join(kconfig)}' if kconfig else ''
			log(f'building {req.version}{extra} in {kunit.build_dir}')
			with phase('build'):
				build = kunit.build(req.jobs, os.path.join(logs, 'build.log'), kconfig)
			log('up to date: nothing it is built from changed since its last build'
			    if kunit.skipped else f'built in {build:.1f} s')
			for _ in range(ex.repeat):
				for smp in ex.smps:
					for b in group:
						done = boot_once(kunit, req, ex, b, smp, logs, log)
						out.boots.append(done)
						out.lines.append(f'{done.label}: {done.judged.counts.line()}; '
								 f'prepare {prepare:.1f} s, build {build:.1f} s, '
								 f'boot to last result {done.seconds:.1f} s')
						log(out.lines[-1])
						prepare = 0.0
	return out


def boot_once(kunit: Kunit, req: BuildRequest, ex: ExecRequest, b: boots.Boot,
	      smp: int, logs: str, log: Callable[[str], None] = say) -> Boot:
	"""Boot what @kunit built once and judge it (assess.boot)."""
	label = f'{req.version}{" debug" if req.debug else ""} [{b.name}]'
	stem = ex.log_prefix + (b.name if smp == 8 else f'{b.name}.smp{smp}')
	label += '' if smp == 8 else f' {smp} CPUs'
	if req.arch != arches.DEFAULT:
		label = label.replace(req.version, f'{req.version}/{req.arch}', 1)
	if ex.board != arches.get(req.arch).board:
		stem, label = f'{stem}.{ex.board}', f'{label} {ex.board}'
	console = os.path.join(logs, f'{stem}.console')
	json_path = os.path.join(logs, f'{stem}.json')
	# The label names a CPU count other than 8 already.
	log(f'booting {label} in UML' if req.arch == 'um' else
	    f'booting {label} in QEMU' if smp != 8 else
	    f'booting {label} with {smp} CPUs in QEMU')

	secs, error = 0.0, None
	with phase('boot'):
		try:
			secs = kunit.boot(b.kernel_args, ex.kunit_args, ex.timeout, console, smp,
					  on_line=Live(label) if ex.live else None,
					  board=ex.board)
		except StaleKernel:
			raise
		except WqKunitError as e:
			error = str(e)
		text, complete = kunit.parse(console, json_path)
	with open(console, encoding='utf-8', errors='replace') as f:
		whole = f.read()
	# Not the board asked for: every verdict of the boot is about another machine.
	problem = board_mod.check(whole, smp, ex.board) if ex.board else None
	if problem and not error:
		error = board_mod.PREFIX + problem
	judged = assess.boot(whole, text, complete, error)
	_tell(judged, label, console, whole, log)
	if ex.json and text:
		dest = ex.json if len(ex.boots) == 1 else \
			f'{os.path.splitext(ex.json)[0]}.{req.version}.{b.name}.json'
		shutil.copyfile(json_path, dest)
	if not judged.passed and ex.keep_failed:
		keep = os.path.join(logs, 'failed')
		os.makedirs(keep, exist_ok=True)
		shutil.copyfile(console, os.path.join(
			keep, f'{stem}.{time.strftime("%Y%m%d-%H%M%S")}.console'))
	return Boot(b.name, label, judged, console, secs)


def _tell(judged: assess.Assessment, label: str, console: str, whole: str,
	  log: Callable[[str], None]) -> None:
	"""Say why a boot failed, with the end of its console where no case
	is to blame."""
	for splat in judged.boot_reports:
		log(f'note: {label}: the kernel reported a problem before the suite: '
		    f'{splat.summary()}')
	for splat in judged.reports:
		log(f'FAILED {label}: kernel report during the suite: {splat.summary()}')
		print('\n'.join(splat.lines), flush=True)
	for name in judged.counts.failures:
		log(f'FAILED {label} {name}')
	if judged.errors:
		log(f'{label}: the console ({console}) ends with:')
		print('\n'.join(whole.splitlines()[-20:]), flush=True)

# SPDX-License-Identifier: GPL-2.0
"""Building and booting through the kernel tree's own kunit.py.

The console of every boot is kept whole (kunit.py exec --raw_output=all),
then handed to kunit.py parse, whose parser prints the results and writes
the JSON that the tool counts.
"""

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import arches, paths
from . import board as board_mod
from .errors import StaleKernel, WqKunitError

# The architecture's own QEMU configuration, as opposed to None: kunit.py's.
ARCH_QEMU = 'arch'
# Seconds an interrupted kunit.py, make or QEMU has to end on SIGTERM.
GRACE = 10
# In a build directory: the digest of the inputs of the last build that
# succeeded there (Kunit.inputs()).  It is removed before each build.
STAMP = '.wq-kunit-inputs'


def read_stamp(path: str) -> str:
	"""The digest a stamp file holds, '' if there is none."""
	try:
		with open(path, encoding='utf-8') as f:
			return f.read()
	except OSError:
		return ''


def write_stamp(path: str, digest: str) -> None:
	with open(path, 'w', encoding='utf-8') as f:
		f.write(digest)


# Every object goes through ccache (Arch.gcc), whose cache is in ours: a
# rebuild of something built before (a mutant reverted, a case added and
# removed again) costs a lookup, not a compilation.
def ccache_env(cold: bool = False) -> Dict[str, str]:
	"""The environment of a build: ccache's directory in our cache, or
	ccache out of the way for a @cold build, which has nothing to find.

	ccache stays in its default mode.  Its depend mode would save
	preprocessing on a miss, but it does not see the .incbin of
	arch/arm/boot/compressed/piggy.S and hands back a zImage holding an
	older kernel."""
	env = dict(os.environ, CCACHE_DIR=os.path.join(paths.cache_dir(), 'ccache'),
		   WQ_KUNIT_CACHE=paths.cache_dir())
	env.setdefault('CCACHE_MAXSIZE', '4G')
	if cold:
		env['CCACHE_DISABLE'] = '1'
	return env


class Kunit:
	def __init__(self, tree: str, build_dir: str,
		     qemu_config: Optional[str] = ARCH_QEMU,
		     kunitconfigs: Optional[Sequence[str]] = None,
		     arch: arches.Arch = arches.ARCHES[arches.DEFAULT],
		     reuse: bool = False) -> None:
		"""@qemu_config None: kunit.py's own configuration for @arch.
		@reuse: skip a build whose inputs are those of the last one in
		@build_dir; only for a tree whose every input git sees (ours)."""
		self.tree = tree
		self.build_dir = build_dir
		self.arch = arch
		self.reuse = reuse
		self.skipped = False		# the last build() was skipped
		if qemu_config == ARCH_QEMU:
			qemu_config = arch.qemu_config
		self.qemu_config = qemu_config
		self.kunitconfigs = list(kunitconfigs or arch.kunitconfigs)
		self.common = [f'--arch={arch.name}']
		if arch.cross:
			self.common.append(f'--cross_compile={arch.cross}')
		for k in self.kunitconfigs:
			self.common.append(f'--kunitconfig={k}')
		if qemu_config:
			self.common.append(f'--qemu_config={qemu_config}')
		self.common.append(f'--build_dir={build_dir}')

	def variant(self, name: str) -> 'Kunit':
		"""The same build in a directory of its own, @build_dir+@name, for
		a Kconfig variant.  A new one starts as a copy of this one's
		(Kbuild's paths in it are relative), so that its first build
		redoes only what the variant changes, and each directory keeps
		its own kernel: no build switches one back and forth."""
		other = Kunit(self.tree, f'{self.build_dir}+{name}', self.qemu_config,
			      self.kunitconfigs, self.arch, self.reuse)
		if not os.path.isdir(other.build_dir) and \
		   os.path.exists(os.path.join(self.build_dir, 'vmlinux')):
			shutil.copytree(self.build_dir, other.build_dir, symlinks=True)
		return other

	def inputs(self, args: Sequence[str]) -> Optional[str]:
		"""A digest of what a build with kunit.py's @args reads: the
		command, the kunitconfigs and QEMU configuration, the compiler,
		and the tree's commit with every file that differs from it.  None
		where that cannot be told (not @reuse, or not a git work tree)."""
		if not self.reuse:
			return None
		h = hashlib.sha256()
		for part in self._cmd('build', [a for a in args if not a.startswith('--jobs=')]):
			h.update(part.encode() + b'\0')
		for path in self.kunitconfigs + ([self.qemu_config] if self.qemu_config else []):
			h.update(_content(path))
		compiler = shutil.which(f'{self.arch.cross}gcc')
		if compiler:
			st = os.stat(compiler)
			h.update(f'{os.path.realpath(compiler)} {st.st_size} {st.st_mtime_ns}'.encode())
		try:
			head = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=self.tree, check=True,
					      capture_output=True, text=True).stdout
			status = subprocess.run(['git', 'status', '--porcelain=v1', '-z', '-uall'],
						cwd=self.tree, check=True, capture_output=True).stdout
		except (OSError, subprocess.CalledProcessError):
			return None
		h.update(head.encode() + status)
		for entry in status.split(b'\0'):
			# "XY path"; a rename's source follows as an entry of its own.
			path = entry[3:] if len(entry) > 3 and entry[2:3] == b' ' else entry
			if path:
				h.update(_content(os.path.join(self.tree, os.fsdecode(path))))
		return h.hexdigest()

	def _cmd(self, sub: str, args: List[str]) -> List[str]:
		kunit_py = os.path.join(self.tree, 'tools', 'testing', 'kunit', 'kunit.py')
		return [sys.executable, kunit_py, sub] + self.common + args

	def build(self, jobs: int, log: str, kconfig: Sequence[str] = (),
		  cold: Optional[bool] = None) -> float:
		"""Configure and build with @kconfig added; return the seconds it took.

		A different @kconfig in the same build directory makes Kbuild
		rebuild only what depends on the symbols that changed.  A @cold
		build (default: one with no vmlinux yet) bypasses ccache: looking
		every file up only to miss costs it 30%.  With @reuse, a build
		whose inputs() are those of the last one here is skipped
		(@skipped, 0 s): make would find nothing to do, in 20 to 30 s.
		"""
		if cold is None:
			cold = not os.path.exists(os.path.join(self.build_dir, 'vmlinux'))
		os.makedirs(self.build_dir, exist_ok=True)
		args = [f'--jobs={jobs}', f'--make_options=CC={self.arch.gcc}']
		args += [f'--kconfig_add={k}' for k in kconfig]
		digest = self.inputs(args)
		stamp = os.path.join(self.build_dir, STAMP)
		self.skipped = bool(digest) and read_stamp(stamp) == digest and \
			os.path.exists(os.path.join(self.build_dir, 'vmlinux'))
		if self.skipped:
			return 0.0
		with contextlib.suppress(FileNotFoundError):
			os.remove(stamp)
		start = time.monotonic()
		with open(log, 'w', encoding='utf-8') as out:
			returncode = run_tree(self._cmd('build', args), cwd=self.tree,
					       stdout=out, env=dict(ccache_env(cold),
								    WQ_KUNIT_ARCH=self.arch.name),
					       stderr=subprocess.STDOUT)
		if returncode:
			raise WqKunitError(f'the kernel did not build: {_last_line(log)} '
					   f'(whole log: {log})')
		if digest:
			write_stamp(stamp, digest)
		return time.monotonic() - start

	def boot(self, kernel_args: List[str], extra: List[str], timeout: int,
		 console: str, cpus: int = 8,
		 on_line: Optional[Callable[[str], None]] = None,
		 board: Optional[str] = board_mod.BIG_LITTLE) -> float:
		"""Boot the built kernel once on @board with @cpus CPUs, the whole
		console into @console, each line also to @on_line as QEMU prints it."""
		args = [f'--timeout={timeout}', '--raw_output=all']
		args += [f'--kernel_args={a}' for a in kernel_args] + extra
		start = time.monotonic()
		# kunit.py's stderr apart: 6.1's runs stty, whose complaint
		# about a missing terminal landed amid the KTAP lines.
		errors = console + '.stderr'
		# Unbuffered, so that a line reaches us when QEMU prints it; the
		# cache absolute, as kunit.py changes to the tree's directory.
		env = dict(os.environ, WQ_KUNIT_SMP=str(cpus), WQ_KUNIT_BOARD=board or '',
			   WQ_KUNIT_ARCH=self.arch.name,
			   PYTHONUNBUFFERED='1',
			   WQ_KUNIT_CACHE=paths.cache_dir())
		with open(console, 'w', encoding='utf-8') as out, \
		     open(errors, 'w', encoding='utf-8') as err:
			returncode = run_tree(self._cmd('exec', args), cwd=self.tree,
					       stdout=out, stderr=err, stdin=subprocess.DEVNULL,
					       env=env, on_line=on_line)
		if returncode:
			raise WqKunitError(f'kunit.py exec failed: {_last_line(errors)} '
					   f'(console: {console}, stderr: {errors})')
		self._check_booted(console)
		return time.monotonic() - start

	def _check_booted(self, console: str) -> None:
		"""The kernel on @console is the one last built here, by its
		UTS_VERSION (build number and time): a stale image fails loudly."""
		try:
			with open(os.path.join(self.build_dir, 'include', 'generated',
					       'utsversion.h'), encoding='utf-8') as f:
				built = f.read().split('"')[1]
		except (OSError, IndexError):
			return
		with open(console, encoding='utf-8', errors='replace') as f:
			booted = [l for l in f if 'Linux version ' in l]
		if booted and built not in booted[0]:
			raise StaleKernel(f'QEMU booted another kernel than the one built in '
					   f'{self.build_dir} ({built}): '
					   f'{booted[0].split("Linux version ")[1].strip()[:120]}')

	def parse(self, console: str, json_out: str) -> Tuple[Optional[str], bool]:
		"""Parse @console with kunit.py, quietly (the results were shown
		as the guest printed them): the JSON it wrote, and whether it
		found the run complete and passing (False on a crash or hang too)."""
		kunit_py = os.path.join(self.tree, 'tools', 'testing', 'kunit', 'kunit.py')
		if os.path.exists(json_out):
			os.remove(json_out)
		proc = subprocess.run([sys.executable, kunit_py, 'parse', f'--json={json_out}', console],
				      cwd=self.tree, check=False, stdin=subprocess.DEVNULL,
				      stdout=subprocess.DEVNULL)
		try:
			with open(json_out, encoding='utf-8') as f:
				return f.read(), proc.returncode == 0
		except OSError:
			return None, False


# A process: its pid and its start time, so that a pid used again by
# some other process after ours ended is never signalled.
Proc = Tuple[int, str]


def run_tree(cmd: List[str], on_line: Optional[Callable[[str], None]] = None,
	     **kwargs) -> int:
	"""Run @cmd and return its exit status; with @on_line, its output
	goes through us line by line, to the file @kwargs['stdout'] and to
	@on_line, as the command writes it.

	If we are interrupted meanwhile, the whole process tree @cmd started
	ends first (kunit.py, make and its compilers, QEMU): nothing may go on
	writing to a build directory whose lock we are about to give up.  Each
	gets SIGTERM, so that make deletes the target it was writing; what is
	left after GRACE seconds gets SIGKILL.  The tree stays in our process
	group, so that a CI job killing the group still reaches all of it."""
	sink = kwargs.pop('stdout', None) if on_line else None
	if on_line:
		kwargs.update(stdout=subprocess.PIPE, text=True, encoding='utf-8',
			      errors='replace')
	with subprocess.Popen(cmd, **kwargs) as child:
		try:
			if on_line:
				for line in iter(child.stdout.readline, ''):
					if sink:
						sink.write(line)
						sink.flush()
					on_line(line)
			return child.wait()
		except BaseException:
			_end_tree(child)
			raise


def _end_tree(child: subprocess.Popen) -> None:
	procs = _tree(child.pid)
	_signal(procs, signal.SIGTERM)
	deadline = time.monotonic() + GRACE
	with contextlib.suppress(subprocess.TimeoutExpired):
		child.wait(timeout=GRACE)
	_wait_for(procs, deadline)
	_signal(_living(procs), signal.SIGKILL)
	child.wait()
	_wait_for(procs, time.monotonic() + GRACE)


def _wait_for(procs: List[Proc], deadline: float) -> None:
	"""Until every one of @procs has ended, or until @deadline."""
	while time.monotonic() < deadline and _living(procs):
		time.sleep(0.05)


def _stat(pid: int) -> List[str]:
	"""The fields of /proc/@pid/stat after the command name, from the
	state on; [] if there is no such process."""
	try:
		with open(f'/proc/{pid}/stat', encoding='utf-8') as f:
			return f.read().rsplit(')', 1)[1].split()
	except (OSError, IndexError):
		return []


def _tree(root: int) -> List[Proc]:
	"""@root and every process descending from it, from /proc."""
	started: Dict[int, str] = {}
	children: Dict[int, List[int]] = {}
	for entry in os.listdir('/proc'):
		fields = _stat(int(entry)) if entry.isdigit() else []
		if len(fields) > 19:
			started[int(entry)] = fields[19]
			children.setdefault(int(fields[1]), []).append(int(entry))
	tree = [root]
	for pid in tree:
		tree += children.get(pid, [])
	return [(pid, started.get(pid, '')) for pid in tree]


def _living(procs: List[Proc]) -> List[Proc]:
	"""Those of @procs still running: same start time, not a zombie."""
	living = []
	for pid, started in procs:
		fields = _stat(pid)
		if len(fields) > 19 and fields[19] == started and fields[0] != 'Z':
			living.append((pid, started))
	return living


def _signal(procs: List[Proc], sig: int) -> None:
	for pid, _ in procs:
		with contextlib.suppress(ProcessLookupError):
			os.kill(pid, sig)


def _content(path: str) -> bytes:
	"""@path's bytes, or a marker of its absence."""
	try:
		with open(path, 'rb') as f:
			return f.read()
	except OSError:
		return b'\0(none)'


def _last_line(log: str) -> str:
	"""The line of @log that says why it failed: the compiler's first
	error, else the last line naming an error, else the last line."""
	try:
		with open(log, encoding='utf-8', errors='replace') as f:
			lines = [l.strip() for l in f if l.strip()]
	except OSError:
		return '(no log)'
	compiler = [l for l in lines if re.search(r':\d+(:\d+)?: (fatal )?error: ', l)]
	if compiler:
		return compiler[0]
	errors = [l for l in lines if 'error' in l.lower()]
	return (errors or lines or ['(empty log)'])[-1]

# SPDX-License-Identifier: GPL-2.0
"""Building and booting through the kernel tree's own kunit.py.

The console of every boot is kept whole (kunit.py exec --raw_output=all)
and followed line by line as QEMU prints it (ktap.Follower), then handed
to kunit.py parse, whose parser counts the results in the JSON it writes.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..base import digest_stamps, repo_paths
from ..base.errors import WqKunitError
from ..base.process_tree import run_tree
from ..configs import arches, board as board_mod
from ..verdicts import ktap
from . import build_progress

# The architecture's own QEMU configuration, as opposed to None: kunit.py's.
ARCH_QEMU = 'arch'
# Beside a build's log: how many objects the last cold build compiled.
OBJECTS = 'build.objects'
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
	env = dict(os.environ, CCACHE_DIR=os.path.join(repo_paths.cache_dir(), 'ccache'),
		   WQ_KUNIT_CACHE=repo_paths.cache_dir())
	env.setdefault('CCACHE_MAXSIZE', '4G')
	if cold:
		env['CCACHE_DISABLE'] = '1'
	return env


class Kunit:
	def __init__(self, tree: str, build_dir: str,
		     qemu_config: Optional[str] = ARCH_QEMU,
		     kunitconfigs: Optional[Sequence[str]] = None,
		     arch: arches.Arch = arches.ARCHES[arches.DEFAULT],
		     reuse: bool = False,
		     say: Callable[[str], None] = lambda m: print(f'wq-kunit: {m}', flush=True)
		     ) -> None:
		"""@qemu_config None: kunit.py's own configuration for @arch.
		@reuse: skip a build whose inputs are those of the last one in
		@build_dir; only for a tree whose every input git sees (ours)."""
		self.tree = tree
		self.build_dir = build_dir
		self.arch = arch
		self.reuse = reuse
		self.say = say
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
			      self.kunitconfigs, self.arch, self.reuse, self.say)
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
		compiler = shutil.which(f'{self.arch.cross}gcc')
		return digest_stamps.inputs(
			self.tree, self._cmd('build', [a for a in args if not a.startswith('--jobs=')]),
			self.kunitconfigs + ([self.qemu_config] if self.qemu_config else []),
			compiler)

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
		stamp = os.path.join(self.build_dir, digest_stamps.BUILD)
		self.skipped = bool(digest) and digest_stamps.read(stamp) == digest and \
			os.path.exists(os.path.join(self.build_dir, 'vmlinux'))
		if self.skipped:
			return 0.0
		with contextlib.suppress(FileNotFoundError):
			os.remove(stamp)
		start = time.monotonic()
		# What a cold build compiles, the last time one did, beside its log.
		record = os.path.join(os.path.dirname(log), OBJECTS) if cold else None
		with open(log, 'w', encoding='utf-8') as out, \
		     build_progress.shown(f'building {os.path.basename(self.build_dir)}',
				    self.build_dir, self.say, record=record):
			if run_tree(self._cmd('build', args), cwd=self.tree, stdout=out,
				    env=dict(ccache_env(cold), WQ_KUNIT_ARCH=self.arch.name),
				    stderr=subprocess.STDOUT):
				raise WqKunitError(f'the kernel did not build: {_last_line(log)} '
						   f'(whole log: {log})')
		if digest:
			digest_stamps.write(stamp, digest)
		return time.monotonic() - start

	def boot(self, kernel_args: List[str], extra: List[str], timeout: int,
		 console: str, cpus: int = 8,
		 on_line: Optional[Callable[[str], None]] = None,
		 board: Optional[str] = board_mod.BIG_LITTLE, initrd: str = '',
		 numa: int = 0) -> float:
		"""Boot the built kernel once on @board with @cpus CPUs, the whole
		console into @console, each line also to @on_line as QEMU prints it;
		with @initrd, an initramfs for the QEMU configuration to pass."""
		args = [f'--timeout={timeout}', '--raw_output=all']
		args += [f'--kernel_args={a}' for a in kernel_args] + extra
		start = time.monotonic()
		# kunit.py's stderr apart: 6.1's runs stty, whose complaint
		# about a missing terminal landed amid the KTAP lines.
		errors = console + '.stderr'
		# Unbuffered, so that a line reaches us when QEMU prints it; the
		# cache absolute, as kunit.py changes to the tree's directory.
		env = dict(os.environ, WQ_KUNIT_SMP=str(cpus), WQ_KUNIT_BOARD=board or '',
			   WQ_KUNIT_ARCH=self.arch.name, WQ_KUNIT_INITRD=initrd,
			   WQ_KUNIT_NUMA=str(numa),
			   PYTHONUNBUFFERED='1',
			   WQ_KUNIT_CACHE=repo_paths.cache_dir())
		with open(console, 'w', encoding='utf-8') as out, \
		     open(errors, 'w', encoding='utf-8') as err:
			returncode = run_tree(self._cmd('exec', args), cwd=self.tree,
					       stdout=out, stderr=err, stdin=subprocess.DEVNULL,
					       env=env, on_line=on_line)
		if returncode:
			raise WqKunitError(f'kunit.py exec failed: {_last_line(errors)} '
					   f'(console: {console}, stderr: {errors})')
		return time.monotonic() - start

	def stale(self, console: str) -> Optional[str]:
		"""Why the kernel on @console may not be the one last built here,
		by its UTS_VERSION (build number and time), or None if it is.
		Fails closed: a build or console it cannot read is a reason."""
		built = None
		# utsversion.h since 6.1, compile.h before.
		for name in ('utsversion.h', 'compile.h'):
			path = os.path.join(self.build_dir, 'include', 'generated', name)
			with contextlib.suppress(OSError, IndexError):
				with open(path, encoding='utf-8') as f:
					built = [l for l in f if 'UTS_VERSION' in l][0].split('"')[1]
				break
		if not built:
			return f'no UTS_VERSION in {self.build_dir}: cannot tell which kernel booted'
		with open(console, encoding='utf-8', errors='replace') as f:
			booted = [l for l in f if 'Linux version ' in l]
		if not booted:
			return 'no "Linux version" line on the console: cannot tell which kernel booted'
		if built not in booted[0]:
			return (f'QEMU booted another kernel than the one built in '
				f'{self.build_dir} ({built}): '
				f'{booted[0].split("Linux version ")[1].strip()[:120]}')
		return None

	def parse(self, console: str, json_out: str) -> Tuple[Optional[str], bool]:
		"""Parse @console with kunit.py, quietly (the results were shown
		as the guest printed them): the JSON it wrote, and whether the
		run got to its end (ktap.finished()): False on a hang, or a crash
		that stopped the guest.  A case a crash cut short is in the JSON.

		kunit.py parse's exit status says neither: it is 1 for a run
		every result of which is a skip too (a report boot's), as for a
		failed case or a crash."""
		kunit_py = os.path.join(self.tree, 'tools', 'testing', 'kunit', 'kunit.py')
		if os.path.exists(json_out):
			os.remove(json_out)
		subprocess.run([sys.executable, kunit_py, 'parse', f'--json={json_out}', console],
			       cwd=self.tree, check=False, stdin=subprocess.DEVNULL,
			       stdout=subprocess.DEVNULL)
		try:
			with open(json_out, encoding='utf-8') as f:
				text = f.read()
			with open(console, encoding='utf-8', errors='replace') as f:
				return text, ktap.finished(f.read())
		except OSError:
			return None, False


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

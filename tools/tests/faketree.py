# SPDX-License-Identifier: GPL-2.0
"""The end-to-end tests' fixture: a cache of Debian's trees in which
the fake tree stands for each, whose kunit.py replays consoles recorded
from real boots (data/fake-tree, data/replay)."""

import contextlib
import io
import os
import shlex
import shutil
import sys
import tarfile
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from tests.util import DATA, TempDirTest, copy_tree, pack
from wqkunit.base import repo_paths
from wqkunit.build import module_boot
from wqkunit.cli import main
from wqkunit.configs import boot_configs
from wqkunit.tree import kernel_trees
from wqkunit.verdicts import manifest


class FakeTreeTest(TempDirTest):
	"""A cache of its own; Debian's tarballs of @VERSIONS replaced by the
	fake tree with @MARKERS on top of its kernel/workqueue.c, each
	unpacked with the series applied already (as test_cache.py's tests
	do it): a copy of the class's."""
	MARKERS = ''
	VERSIONS = ('6.1', '6.12')

	@classmethod
	def setUpClass(cls):
		cls.shared = tempfile.mkdtemp(prefix='wq-kunit-test-')
		cls.tarballs = {version: cls.fake_source(version) for version in cls.VERSIONS}
		cls.trees = os.path.join(cls.shared, 'cache')
		# The fake kunit.py needs nothing of site-packages: started without
		# the site module, whose imports cost more than all it does.
		cls.python = os.path.join(cls.shared, 'python')
		with open(cls.python, 'w', encoding='utf-8') as f:
			f.write(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -S "$@"\n')
		os.chmod(cls.python, 0o755)
		with mock.patch('wqkunit.configs.kernel_versions.tarball', side_effect=cls.tarballs.get), \
		     mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': cls.trees}):
			for version in cls.VERSIONS:
				pack(kernel_trees.cache_tree(version, lambda _m: None))

	@classmethod
	def fake_source(cls, version: str) -> str:
		"""The fake tree (with 6.12's context where @version is 6.12)
		as Debian's tarball of @version."""
		tree = os.path.join(cls.shared, f'linux-source-{version}')
		shutil.copytree(os.path.join(DATA, 'fake-tree'), tree)
		if version != '6.1':
			shutil.copytree(os.path.join(DATA, f'fake-tree-{version}'), tree, dirs_exist_ok=True)
		path = os.path.join(tree, 'kernel', 'workqueue.c')
		with open(path, encoding='utf-8') as f:
			text = f.read()
		# The lines of @version's own workqueue.c that its series touches.
		with contextlib.suppress(FileNotFoundError), open(f'{path}.head', encoding='utf-8') as f:
			text = f.read() + text
		with open(path, 'w', encoding='utf-8') as f:
			f.write(cls.MARKERS + text)
		tarball = f'{tree}.tar.xz'
		with tarfile.open(tarball, 'w:xz') as tar:
			tar.add(tree, arcname='linux-source')
		return tarball

	@classmethod
	def tearDownClass(cls):
		shutil.rmtree(cls.shared, ignore_errors=True)

	def setUp(self):
		super().setUp()
		self.cache = os.path.join(self.tmp, 'cache')
		env = {'WQ_KUNIT_CACHE': self.cache, 'WQ_KUNIT_REPLAY': os.path.join(DATA, 'replay')}
		for p in (mock.patch('wqkunit.configs.kernel_versions.tarball', side_effect=self.tarballs.get),
			  mock.patch('wqkunit.base.debian_packages.ensure'),
			  mock.patch.object(manifest, 'DIR', os.path.join(self.tmp, 'expected')),
			  mock.patch.object(sys, 'executable', self.python),
			  mock.patch.dict(os.environ, env),
			  # No cross compiler for /init: the module boot replays a console.
			  mock.patch.object(module_boot, 'initrd', lambda kunit, module: '')):
			p.start()
			self.addCleanup(p.stop)
		os.makedirs(self.cache)
		copy_tree(os.path.join(self.trees, 'src'), os.path.join(self.cache, 'src'))

	@contextlib.contextmanager
	def boots_ini(self, edit):
		"""kunit/boots.ini as @edit(its text) has it."""
		ini = os.path.join(self.tmp, 'boots.ini')
		with open(repo_paths.BOOTS, encoding='utf-8') as f:
			text = edit(f.read())
		with open(ini, 'w', encoding='utf-8') as f:
			f.write(text)
		with mock.patch.object(repo_paths, 'BOOTS', ini), \
		     mock.patch.object(boot_configs.load, '__defaults__', (ini,)), \
		     mock.patch.object(boot_configs.select, '__defaults__', (ini, 'arm')):
			yield

	def main(self, *argv):
		"""main.main(@argv): exit status, and what it printed."""
		out = io.StringIO()
		with redirect_stdout(out), redirect_stderr(out):
			rc = main.main(list(argv))
		return rc, out.getvalue()

# SPDX-License-Identifier: GPL-2.0
"""A boot of the suite built as a module: an initramfs whose /init
(kunit/module_init.c, built against the tree's own nolibc) loads it and
powers the guest off, and the console made parseable.

The kernel's command line then ends in "--" (the QEMU configuration does
that when WQ_KUNIT_INITRD is set), so that the kunit_shutdown=reboot which
kunit.py appends goes to /init: the built-in KUnit, with no suite of its
own, would otherwise shut the guest down before /init ran."""

import os
import re

from ..base import repo_paths, short_commands
from ..base.errors import WqKunitError

INIT_SOURCE = os.path.join(repo_paths.KUNIT_DIR, 'module_init.c')
# The module's object, as kernel/tests/Makefile names it.
MODULE_DIR = os.path.join('kernel', 'tests')


def _init(kunit, module: str) -> str:
	"""/init for @module, built once per build directory and source."""
	out = os.path.join(kunit.build_dir, 'wq-kunit-init')
	if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(INIT_SOURCE):
		return out
	headers = os.path.join(kunit.build_dir, 'usr', 'include')
	if not os.path.isdir(os.path.join(headers, 'asm')):
		make = ['make', f'ARCH={kunit.arch.name}', f'O={os.path.abspath(kunit.build_dir)}']
		if kunit.arch.cross:
			make.append(f'CROSS_COMPILE={kunit.arch.cross}')
		short_commands.run(make + ['headers'], cwd=kunit.tree,
			    what='make headers for the module boot\'s /init')
	gcc = f'{kunit.arch.cross}gcc'
	builtin = short_commands.output([gcc, '-print-file-name=include'])
	nolibc = os.path.join(kunit.tree, 'tools', 'include', 'nolibc', 'nolibc.h')
	short_commands.run([gcc, '-Os', '-static', '-nostdlib', '-nostdinc', '-fno-ident',
		     '-fno-asynchronous-unwind-tables', '-isystem', builtin,
		     '-I', headers, '-include', nolibc,
		     f'-DMODULE_PATH="/{module}.ko"', '-o', out + '.tmp', INIT_SOURCE, '-lgcc'],
		    what='building the module boot\'s /init')
	os.replace(out + '.tmp', out)
	return out


def _newc(name: str, mode: int, data: bytes = b'', rdev: tuple = (0, 0)) -> bytes:
	"""One entry of a "newc" cpio archive, as the kernel's initramfs reads it."""
	fields = [0, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
	head = b'070701' + b''.join(b'%08X' % f for f in fields) + name.encode() + b'\0'
	head += b'\0' * (-len(head) % 4)
	return head + data + b'\0' * (-len(data) % 4)


def initrd(kunit, module: str) -> str:
	"""The initramfs that loads @module from @kunit's build: its path."""
	ko = os.path.join(kunit.build_dir, MODULE_DIR, f'{module}.ko')
	if not os.path.exists(ko):
		raise WqKunitError(f'{ko} was not built: the module boot needs '
				   f'CONFIG_WORKQUEUE_KUNIT_TEST=m and CONFIG_MODULES=y')
	with open(_init(kunit, module), 'rb') as f:
		init = f.read()
	with open(ko, 'rb') as f:
		obj = f.read()
	archive = _newc('dev', 0o40755) + _newc('dev/console', 0o20600, rdev=(5, 1)) + \
		_newc('init', 0o100755, init) + _newc(f'{module}.ko', 0o100644, obj) + \
		_newc('TRAILER!!!', 0)
	path = os.path.join(kunit.build_dir, 'wq-kunit-initrd.cpio')
	with open(path + '.tmp', 'wb') as f:
		f.write(archive)
	os.replace(path + '.tmp', path)
	return path


# A top-level empty plan: the built-in KUnit's, with no suite of its own.
_EMPTY_PLAN = re.compile(r'^(\[[^\]]*\] )?1\.\.0$')
_HEADER = re.compile(r'^(\[[^\]]*\] )?KTAP version 1$')


def parseable(console: str) -> str:
	"""A copy of @console without the built-in KUnit's empty plan, so that
	kunit.py parses the module's suites as the run (6.12 prints a header
	of its own for them, 6.1 none): its path."""
	out, header = [], False
	with open(console, encoding='utf-8', errors='replace') as f:
		for line in f:
			bare = line.rstrip('\n')
			if _EMPTY_PLAN.match(bare):
				continue
			if _HEADER.match(bare):
				if header:
					continue
				header = True
			out.append(line)
	path = console + '.module'
	with open(path, 'w', encoding='utf-8') as f:
		f.writelines(out)
	return path


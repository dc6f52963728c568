# SPDX-License-Identifier: GPL-2.0
"""Short commands (git, tar, dpkg-query) whose output we capture: to
return, to add to a log, or to say why one failed.  kunit.py, make and
QEMU run through process_tree.run_tree() instead."""

import shlex
import subprocess
from typing import List, Optional

from .errors import WqKunitError


def run(cmd: List[str], cwd: Optional[str] = None, what: str = '',
	log: Optional[str] = None, env: Optional[dict] = None) -> str:
	"""Run @cmd; return its stdout, or raise with @what and its last line."""
	try:
		proc = subprocess.run(cmd, cwd=cwd, env=env, text=True,
				      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
				      errors='backslashreplace', check=False)
	except FileNotFoundError:
		raise WqKunitError(f'{what or cmd[0]}: {cmd[0]} is not installed') from None
	if log:
		with open(log, 'a', encoding='utf-8') as f:
			f.write('$ ' + shlex.join(cmd) + '\n' + proc.stdout)
	if proc.returncode:
		lines = [l for l in proc.stdout.splitlines() if l.strip()]
		last = lines[-1].strip() if lines else f'exit {proc.returncode}'
		raise WqKunitError(f'{what or shlex.join(cmd)} failed: {last}')
	return proc.stdout


def ok(cmd: List[str], cwd: Optional[str] = None) -> bool:
	"""True if @cmd exits 0; its output is discarded."""
	try:
		return subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
				      stderr=subprocess.DEVNULL, check=False).returncode == 0
	except FileNotFoundError:
		return False


def output(cmd: List[str], cwd: Optional[str] = None) -> str:
	"""@cmd's stdout, stripped, if it exits 0; else ''."""
	try:
		done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
	except FileNotFoundError:
		return ''
	return done.stdout.strip() if done.returncode == 0 else ''

# SPDX-License-Identifier: GPL-2.0
"""The Debian packages the suite needs, installed when missing."""

import os
import subprocess
from typing import Callable, List

from .errors import WqKunitError

# Build the kernel with the tree's kunit.py, cross-compiled for 32-bit ARM.
BUILD = ['make', 'gcc', 'libc6-dev', 'bc', 'bison', 'flex', 'git', 'xz-utils',
	 'gcc-arm-linux-gnueabihf', 'ccache']
# Booting it needs QEMU for each architecture: arches.Arch.packages.


def missing(names: List[str]) -> List[str]:
	"""The packages among @names that dpkg does not have installed, each
	once, in their order."""
	absent = []
	for name in dict.fromkeys(names):
		proc = subprocess.run(['dpkg-query', '-W', '-f=${db:Status-Status}', name],
				      capture_output=True, text=True, check=False)
		if proc.stdout.strip() != 'installed':
			absent.append(name)
	return absent


def ensure(names: List[str], say: Callable[[str], None]) -> None:
	"""Install what is missing of @names as root, else say what to install."""
	absent = missing(names)
	if not absent:
		return
	wanted = ' '.join(absent)
	if os.geteuid() != 0:
		raise WqKunitError(f'missing Debian packages: {wanted} '
				   f'(install them as root: apt-get install {wanted})')
	say(f'installing {wanted}')
	env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
	for cmd in (['apt-get', 'update', '-qq'],
		    ['apt-get', 'install', '-y', '-qq', '--no-install-recommends'] + absent):
		proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
				      check=False)
		if proc.returncode:
			lines = (proc.stderr or proc.stdout).strip().splitlines()
			raise WqKunitError(f'{" ".join(cmd[:2])} failed for {wanted}: '
					   f'{lines[-1] if lines else proc.returncode}')
	still = missing(absent)
	if still:
		raise WqKunitError(f'apt-get did not install: {" ".join(still)}')

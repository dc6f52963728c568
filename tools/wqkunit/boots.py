# SPDX-License-Identifier: GPL-2.0
"""Named boot configurations, read from kunit/boots.ini."""

import configparser
from dataclasses import dataclass
from typing import List, Optional, Tuple

from . import paths
from .errors import WqKunitError


@dataclass(frozen=True)
class Boot:
	name: str
	description: str
	kernel_args: List[str]
	kernels: Optional[List[str]]	# None: every version
	kconfig: Tuple[str, ...] = ()	# Kconfig lines on top of the kunitconfig

	def applies_to(self, version: str) -> bool:
		return self.kernels is None or version in self.kernels


def read_ini(path: str, what: str) -> configparser.ConfigParser:
	"""@path parsed as INI, or an error naming @what it should hold."""
	parser = configparser.ConfigParser(interpolation=None)
	try:
		with open(path, encoding='utf-8') as f:
			parser.read_file(f)
	except (OSError, configparser.Error) as e:
		raise WqKunitError(f'cannot read {what} from {path}: {e}') from None
	return parser


def load(path: str = paths.BOOTS) -> List[Boot]:
	parser = read_ini(path, 'boot configurations')
	boots = []
	for name in parser.sections():
		sec = parser[name]
		kernels = sec.get('kernels', '').split()
		kconfig = tuple(sec.get('kconfig', '').split())
		for line in kconfig:
			if not line.startswith('CONFIG_') or '=' not in line:
				raise WqKunitError(f'{path}: [{name}] kconfig: {line!r} is not CONFIG_X=Y')
		boots.append(Boot(name=name, description=sec.get('description', ''),
				  kernel_args=sec.get('kernel_args', '').split(),
				  kernels=kernels or None, kconfig=kconfig))
	return boots


def select(name: str, version: str, path: str = paths.BOOTS) -> List[Boot]:
	"""The configurations @name stands for ('all': every one) on @version."""
	boots = load(path)
	if name == 'all':
		return [b for b in boots if b.applies_to(version)]
	for boot in boots:
		if boot.name == name:
			if not boot.applies_to(version):
				raise WqKunitError(f'boot configuration {name!r} does not apply to '
						   f'{version} (only {", ".join(boot.kernels or [])})')
			return [boot]
	raise WqKunitError(f'unknown boot configuration {name!r}: known are '
			   f'{", ".join(b.name for b in boots)}, all')


def by_build(selected: List[Boot]) -> List[Tuple[Tuple[str, ...], List[Boot]]]:
	"""Group @selected by the Kconfig they need, in order of first use."""
	groups: dict = {}
	for boot in selected:
		groups.setdefault(boot.kconfig, []).append(boot)
	return list(groups.items())

# SPDX-License-Identifier: GPL-2.0
"""The command line's options that several commands share, the checks of
their values, and the parse that refuses a bad command line in one line
before any command starts."""

import argparse
import os
import tempfile
import textwrap
from typing import Callable, List, NoReturn, Optional, Sequence, Union

from ..base.errors import WqKunitError
from ..configs import arches, board, boot_configs, kernel_versions
from ..evidence import mechanical_mutants
from ..gate import gate_check
from ..tree import series

# A command line that cannot be right: exit status 2, as argparse's own.
USAGE = 2


class Usage(WqKunitError):
	"""A bad command line: str() is the reason, @prog the command whose
	--help tells how to write it."""

	def __init__(self, message: str, prog: str = 'wq-kunit') -> None:
		super().__init__(message)
		self.prog = prog

	def line(self) -> str:
		return f'wq-kunit: error: {self} (see {self.prog} --help)'


class _Formatter(argparse.HelpFormatter):
	"""Help wrapped between words only, not inside a hyphenated name
	such as a boot configuration's."""

	def _split_lines(self, text: str, width: int) -> List[str]:
		return textwrap.wrap(' '.join(text.split()), width, break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
	"""An ArgumentParser, and the class of its subcommands' parsers, whose
	errors raise Usage instead of printing the usage and exiting, and
	whose help wraps between words only."""

	def __init__(self, *args, **kwargs) -> None:
		kwargs.setdefault('formatter_class', _Formatter)
		super().__init__(*args, **kwargs)

	def error(self, message: str) -> NoReturn:
		raise Usage(message, self.prog)


def _limits(names: Sequence[str]) -> str:
	"""How many CPUs each of the architectures @names boots, in words."""
	return ', '.join(f'{n} up to {arches.ARCHES[n].max_cpus}' for n in names)


# run: up to the most of any --arch; that --arch's own bound is checked
# by run_commands.run before anything else.
RUN_CPUS = max(a.max_cpus for a in arches.ARCHES.values())
RUN_WHY = f'--arch {_limits(list(arches.ARCHES))}'
# check boots the default board and, once each, gate.OTHER_ARCHES with
# --smp CPUs, UML with one.
GATE_ARCHES = [n for n in (arches.DEFAULT,) + tuple(gate_check.OTHER_ARCHES)
	       if arches.ARCHES[n].qemu_config]
GATE_CPUS = min(arches.ARCHES[n].max_cpus for n in GATE_ARCHES)
GATE_WHY = f'the gate boots {_limits(GATE_ARCHES)}'
# soak boots the default board only.
SOAK_CPUS = arches.ARCHES[arches.DEFAULT].max_cpus
SOAK_WHY = f'soak boots {_limits([arches.DEFAULT])}'


def count(text: str) -> int:
	"""argparse type= of --jobs, --timeout, --runs, --cold-runs: @text as
	a whole number, 1 or more."""
	try:
		n = int(text)
	except ValueError:
		n = 0
	if n < 1:
		raise argparse.ArgumentTypeError(f'{text!r} is not a whole number of 1 or more')
	return n


def cpus(most: int, why: str, many: bool = False) -> Callable[[str], Union[int, List[int]]]:
	"""argparse type= of --smp: a CPU count from 1 to @most, or with @many
	a comma-separated list of them; @why says where @most comes from."""
	what = 'a list of CPU counts such as 2,4,8' if many else 'a CPU count'

	def parse(text: str) -> Union[int, List[int]]:
		try:
			counts = [int(x) for x in text.split(',')]
		except ValueError:
			counts = []
		if not counts or len(counts) > 1 and not many:
			raise argparse.ArgumentTypeError(f'{text!r} is not {what}')
		for c in counts:
			if not 1 <= c <= most:
				raise argparse.ArgumentTypeError(f'{c} is not a CPU count from 1 to '
								 f'{most} ({why})')
		return counts if many else counts[0]
	return parse


def kernel(p: argparse.ArgumentParser) -> None:
	p.add_argument('--kernel', metavar='VERSION', help='one version (default: all)')


def jobs(p: argparse.ArgumentParser, default: int = os.cpu_count() or 1) -> None:
	p.add_argument('--jobs', type=count, default=default,
		       help='parallel make jobs (default: %(default)s)')


def timeout(p: argparse.ArgumentParser, seconds: int) -> None:
	p.add_argument('--timeout', type=count, default=seconds,
		       help='seconds one boot may take (default: %(default)s)')


def boot_names() -> str:
	"""The boot configurations of kunit/boots.ini for --help: each name,
	with the versions it is limited to: "default, ..., unbound-cpus (6.12 only)"."""
	return ', '.join(b.name + (f' ({", ".join(b.kernels)} only)' if b.kernels else '')
			 for b in boot_configs.load())


def boot(p: argparse.ArgumentParser, default: Optional[str], what: str) -> None:
	p.add_argument('--boot', default=default, metavar='NAME',
		       help=f'boot configuration from kunit/boots.ini: {boot_names()}; '
			    f'or "all" ({what})')


def smp(p: argparse.ArgumentParser, most: int, why: str) -> None:
	p.add_argument('--smp', type=cpus(most, why), default=8, metavar='N',
		       help=f'CPUs of the board, 1 to {most}: on the big.LITTLE board the '
			    f'first half LITTLE, the rest big (default: 8; UML: 1)')


def parse(top: argparse.ArgumentParser, argv: List[str]) -> argparse.Namespace:
	"""@argv parsed by @top, the words after its first -- in kunit_args,
	which only run takes.  Raises Usage for a word before -- that no
	option takes, whatever the command."""
	rest: List[str] = []
	if '--' in argv:
		at = argv.index('--')
		argv, rest = argv[:at], argv[at + 1:]
	args, extra = top.parse_known_args(argv)
	prog = f'{top.prog} {args.command}'
	unknown = [word for word in extra if word.startswith('-')]
	if unknown:
		raise Usage(f'unrecognized arguments: {" ".join(unknown)}', prog)
	stray = getattr(args, 'kunit_args', []) + extra
	if stray:
		hints = ['a kernel version goes with --kernel'] if 'kernel' in vars(args) else []
		if args.command == 'run':
			hints.append('arguments for kunit.py go after --')
		raise Usage(f'unexpected argument {stray[0]!r}' +
			    (f': {"; ".join(hints)}' if hints else ''), prog)
	if args.command == 'run':
		args.kunit_args = rest
	elif rest:
		raise Usage(f'unexpected argument {rest[0]!r} after --: only run passes '
			    f'arguments to kunit.py', prog)
	named(args, prog)
	return args


def named(args: argparse.Namespace, prog: str) -> None:
	"""What @args name must exist and apply, or the command line is bad,
	refused before anything is done: the kernel version, the boot
	configuration (for that version, if one is named), the cases of
	--case, --homogeneous's board, campaign's groups and functions, --out's
	directory."""
	kernel = getattr(args, 'kernel', None)
	boot = getattr(args, 'boot', None)
	try:
		if kernel:
			kernel_versions.check(kernel)
		if isinstance(boot, str):
			boot_configs.select(boot, kernel, arch=getattr(args, 'arch', None) or 'arm')
	except WqKunitError as e:
		raise Usage(str(e), prog) from None
	arch = getattr(args, 'arch', None)
	if getattr(args, 'homogeneous', False) and arch and \
	   arches.get(arch).board != board.BIG_LITTLE:
		raise Usage(f'--homogeneous replaces the big.LITTLE board of arm and arm64; '
			    f'--arch {arch} has none', prog)
	asked = getattr(args, 'case', None) or []
	unknown = sorted(set(asked) - set(series.cases(series.every()))) if asked else []
	if unknown:
		raise Usage(f'--case {unknown[0]}: no such case in the series (a case name, '
			    f'without suite or parameter)', prog)
	groups, functions = getattr(args, 'group', None), getattr(args, 'function', None)
	if groups or functions:
		surface = mechanical_mutants.surface()
		bad = sorted(set(groups or ()) - {g.name for g in surface}) + \
			sorted(set(functions or ()) - {f for g in surface for f in g.functions})
		if bad:
			raise Usage(f'{bad[0]}: neither a group nor a function of kunit/surface.ini',
				    prog)
	out = getattr(args, 'out', None)
	if out and not _can_write_in(out):
		raise Usage(f'--out {out}: not a directory that can be written or made', prog)


def _can_write_in(directory: str) -> bool:
	"""@directory exists and takes a new file, or its parent does, so that
	it can be made: tried with a temporary directory, removed at once."""
	where = directory if os.path.isdir(directory) else os.path.dirname(os.path.abspath(directory))
	if os.path.exists(directory) and not os.path.isdir(directory):
		return False
	try:
		tempfile.TemporaryDirectory(dir=where, prefix='.wq-kunit-').cleanup()
	except OSError:
		return False
	return True


def versions(args: argparse.Namespace) -> List[str]:
	"""--kernel's version, checked, or every supported one."""
	return [kernel_versions.check(args.kernel)] if args.kernel else kernel_versions.supported()


def writable(path: Optional[str], option: str) -> None:
	"""A file @path can be written: its directory exists and is ours to
	write, checked before any work that ends in writing it."""
	if not path:
		return
	folder = os.path.dirname(os.path.abspath(path))
	if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
		raise WqKunitError(f'{option} {path}: cannot write to {folder}')

# SPDX-License-Identifier: GPL-2.0
"""wq-kunit's entry point: parse the command line (arguments.py), run the
command it names, and turn what ends it into an exit status and at most
one line on stderr."""

import signal
import sys
from typing import List, Optional

from ..base.errors import WqKunitError
from . import arguments, options


def _terminated(_signum, _frame) -> None:
	"""SIGTERM (a CI job's timeout, say) or SIGHUP (its terminal gone)
	ends a run as Ctrl-C does: the files it changed are put back and
	kunit.py, make and QEMU, in process groups of their own which neither
	signal reaches, end with it (process_tree.run_tree())."""
	raise KeyboardInterrupt


def main(argv: Optional[List[str]] = None) -> int:
	"""Run the command @argv (default: the process's arguments) names;
	its exit status (see the epilog of --help)."""
	signal.signal(signal.SIGTERM, _terminated)
	if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:	# nohup's
		signal.signal(signal.SIGHUP, _terminated)
	argv = list(sys.argv[1:] if argv is None else argv)
	try:
		try:
			# Alone, the command says what it can do.
			args = options.parse(arguments.parser(), argv or ['--help'])
		except SystemExit as e:		# --help, printed
			return e.code if isinstance(e.code, int) else 0
		return args.func(args)
	except options.Usage as e:
		print(e.line(), file=sys.stderr)
		return options.USAGE
	except WqKunitError as e:
		print(f'wq-kunit: error: {e}', file=sys.stderr)
		return 1
	except OSError as e:
		# A read-only or full cache, say: one line, not a traceback.
		where = f'{e.filename}: ' if e.filename else ''
		print(f'wq-kunit: error: {where}{e.strerror or e}', file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		print('wq-kunit: interrupted', file=sys.stderr)
		return 130

# SPDX-License-Identifier: GPL-2.0
"""The exceptions the tool reports as a one-line reason and exit 1."""


class WqKunitError(Exception):
	"""A failure the user can act on; str() is the one-line reason."""


class StaleKernel(WqKunitError):
	"""QEMU booted an older image than the one just built: a tool bug,
	never a verdict on the kernel."""

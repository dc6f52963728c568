# SPDX-License-Identifier: GPL-2.0
"""The one exception the tool reports as a one-line reason and exit 1."""


class WqKunitError(Exception):
	"""A failure the user can act on; str() is the one-line reason."""

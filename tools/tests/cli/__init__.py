# SPDX-License-Identifier: GPL-2.0
"""The tests of wqkunit.cli."""

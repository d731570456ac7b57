#!/usr/bin/env python
"""The todo admin's command line (Django's manage.py): `migrate`, `fsmc_seed`, `runserver`."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "todo.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)

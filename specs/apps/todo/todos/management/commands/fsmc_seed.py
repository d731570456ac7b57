"""`manage.py fsmc_seed`: the admin user fsmc's spec logs in as (admin / fsmc-pass); no todos."""

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the superuser admin / fsmc-pass."

    def handle(self, *args, **options):
        if not User.objects.filter(username="admin").exists():
            User.objects.create_superuser("admin", "admin@example.com", "fsmc-pass")

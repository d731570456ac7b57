"""One model: a todo with a title and whether it is done."""

from django.db import models


class Todo(models.Model):
    title = models.CharField(max_length=100)
    done = models.BooleanField(default=False)

    def __str__(self) -> str:
        return self.title

"""The admin at /admin/, and its CSS and JS served by Django itself (DEBUG is off, so runserver does not)."""

import os

from django.contrib import admin
from django.contrib.staticfiles.finders import find
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path, re_path
from django.views.static import serve


def static(request: HttpRequest, path: str) -> HttpResponse:
    """A static file from the installed apps, as `collectstatic` would lay it out."""
    found = find(path)
    if not isinstance(found, str):
        raise Http404(path)
    return serve(request, os.path.basename(found), document_root=os.path.dirname(found))


urlpatterns = [
    path("admin/", admin.site.urls),
    re_path(r"^static/(?P<path>.*)$", static),
]

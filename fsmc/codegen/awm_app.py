"""Another generator's site, built: an AutoWebWorld app folder (`web/`) bundled with Vite into a dist/ fsmc can serve.

AutoWebWorld keeps, beside each world, the Vue app its coding agent wrote: `src/stores/signature.js` (a pinia store
`signature`: the runtime's state), `src/router/index.js` (one named route per page id), `src/pages/<PAGE>.vue`, often
`src/fsm/FSMRuntime.js`, and a `package.json` naming its packages. The published folders leave out what their Vue
template gave every app unchanged: `index.html`, `src/main.js`, often `src/App.vue`. fsmc writes those (the shell:
a page with `#app`, a pinia with the persisted-state plugin where a store asks for it, the router, Tailwind where
the app uses it) only where the folder has none, and bundles with a Vite config of its own (theirs loads a
source-locator plugin of their editor, which changes nothing a user sees).

Packages: those `src/` imports, plus Vite and its Vue plugin (and Tailwind). `@supabase/supabase-js` and the
source locator, which their package.json names but `src/` never imports, are left out. Where fsmc's own template
packages (fsmc/templates/node_modules) hold every one, they are used as they are; else `npm install` puts them,
at the ranges the app's package.json gives (else AutoWebWorld's template's), in a cache folder keyed by that list,
shared by every app that needs the same. A build is cached by the folder's bytes: the same folder is built once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from fsmc.codegen.npm import NODE_MODULES, BuildError, cache_home
from fsmc.errors import EXIT_UNREADABLE, FsmcError

SHELL = "2"  # the version of the files fsmc writes: a new one builds every app again
REQUIRED = ("fsm.json", "src/stores/signature.js", "src/router/index.js")
SKIPPED = {"node_modules", "dist", ".git"}
NOT_IMPORTED = ("@metagptx/vite-plugin-source-locator", "@supabase/supabase-js")
TAILWIND = ("tailwindcss", "postcss", "autoprefixer")
# The ranges AutoWebWorld's Vue template names (its package.json), for an app folder published without one.
TEMPLATE_RANGES = {
    "vue": "^3.4.37", "pinia": "^2.1.7", "pinia-plugin-persistedstate": "^3.2.1", "vue-router": "^4.2.5",
    "jsonpath-plus": "^7.2.0", "lodash-es": "^4.17.21", "vite": "^5.4.1", "@vitejs/plugin-vue": "^5.1.2",
    "tailwindcss": "^3.4.10", "postcss": "^8.4.45", "autoprefixer": "^10.4.20",
}
BUILD_TIMEOUT_S = 600
LOG_LINES = 20
_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]""", re.M)
_NPM_NAME = re.compile(r"(@[a-z0-9-~][a-z0-9-._~]*/)?[a-z0-9-~][a-z0-9-._~]*")
_PERSISTED = "pinia-plugin-persistedstate"
_NOISE = re.compile(r"^\s+at |^\s*\}?\s*$|^\s*errors: \[")  # stack frames and the ends of error objects


class AppFolderError(FsmcError):
    """The folder is not an AutoWebWorld app, or lacks a file its own sources import."""

    exit_code = EXIT_UNREADABLE


@dataclass(frozen=True)
class AppFolder:
    """An app folder as read: its path, its package.json (empty if none), the packages its sources import."""

    path: Path
    package: dict[str, dict[str, str]]
    imports: frozenset[str]
    tailwind: bool
    persisted: bool

    def ranges(self) -> dict[str, str]:
        named = {**self.package.get("devDependencies", {}), **self.package.get("dependencies", {})}
        return {**TEMPLATE_RANGES, **named}

    def packages(self) -> dict[str, str]:
        """Every package the build needs, with the range it is installed at."""
        names = set(self.imports) | {"vue", "vite", "@vitejs/plugin-vue"} | (set(TAILWIND) if self.tailwind else set())
        names |= {_PERSISTED} if self.persisted else set()
        ranges = self.ranges()
        return {n: ranges.get(n, "latest") for n in sorted(names - set(NOT_IMPORTED))}


def _sources(web: Path) -> list[Path]:
    return sorted(p for p in (web / "src").rglob("*") if p.suffix in (".js", ".ts", ".vue", ".mjs") and p.is_file())


def _package_name(spec: str) -> str:
    parts = spec.split("/")
    return "/".join(parts[:2]) if spec.startswith("@") else parts[0]


def _missing(source: Path, spec: str) -> bool:
    """A relative import of `source` that names no file (with the extensions Vite tries, or an index)."""
    target = (source.parent / spec).resolve()
    tries = [target, *(target.with_name(target.name + ext) for ext in (".js", ".ts", ".vue", ".json", ".mjs")),
             target / "index.js", target / "index.ts"]
    return not any(t.is_file() for t in tries)


def read_app_folder(web: str | Path) -> AppFolder:
    """The app folder, checked: the files of the shape, and every file its sources import; AppFolderError if not."""
    path = Path(web)
    if not path.is_dir():
        raise AppFolderError(f"{path}: no such folder (an AutoWebWorld app folder, `web/`, is expected)")
    absent = [name for name in REQUIRED if not (path / name).is_file()]
    pages = sorted((path / "src" / "pages").glob("*.vue"))
    if absent or not pages:
        what = ", ".join(absent + ([] if pages else ["src/pages/*.vue"]))
        raise AppFolderError(f"{path}: not an AutoWebWorld app folder: {what} missing (the shape: fsm.json, "
                             "src/stores/signature.js with a pinia store `signature`, src/router/index.js, "
                             "src/pages/<PAGE>.vue)")
    try:
        package = json.loads((path / "package.json").read_text(encoding="utf-8")) if (path / "package.json").is_file() else {}
    except (OSError, ValueError) as err:
        raise AppFolderError(f"{path / 'package.json'}: not readable JSON: {err}") from None
    imports, lacking = set(), []
    for source in _sources(path):
        for spec in _IMPORT.findall(source.read_text(encoding="utf-8", errors="replace")):
            if spec.startswith("."):
                if _missing(source, spec):
                    lacking.append(f"{source.relative_to(path)} imports {spec}")
            elif _NPM_NAME.fullmatch(_package_name(spec)):  # not words of a template that read like an import
                imports.add(_package_name(spec))
    if lacking:
        raise AppFolderError(f"{path}: the app cannot be built: its sources import files the folder does not hold: "
                             + "; ".join(lacking))
    named = {**package.get("dependencies", {}), **package.get("devDependencies", {})}
    tailwind = "tailwindcss" in named or not package
    persisted = any("persist:" in s.read_text(encoding="utf-8", errors="replace") for s in (path / "src/stores").glob("*.js"))
    return AppFolder(path, package, frozenset(imports), tailwind, persisted)


# ---------------------------------------------------------------- the shell fsmc writes where the folder has none

def _index_html(app: AppFolder) -> str:
    title = app.package.get("name", "app") if isinstance(app.package.get("name"), str) else "app"
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="UTF-8">\n<meta name="viewport" '
            f'content="width=device-width, initial-scale=1.0">\n<title>{title}</title>\n</head>\n<body>\n'
            '<div id="app"></div>\n<script type="module" src="/src/main.js"></script>\n</body>\n</html>\n')


def _main_js(app: AppFolder, styles: list[str]) -> str:
    lines = ["import { createApp } from 'vue';", "import { createPinia } from 'pinia';"]
    lines += [f"import piniaPersisted from '{_PERSISTED}';"] if app.persisted else []
    lines += ["import App from './App.vue';", "import router from './router';"]
    lines += [f"import './{s}';" for s in styles]
    lines += ["", "const pinia = createPinia();"] + (["pinia.use(piniaPersisted);"] if app.persisted else [])
    lines += ["createApp(App).use(pinia).use(router).mount('#app');", ""]
    return "\n".join(lines)


def _vite_config(app: AppFolder) -> str:
    css = ""
    head = "import { defineConfig } from 'vite';\nimport vue from '@vitejs/plugin-vue';\n"
    if app.tailwind:
        head += "import tailwindcss from 'tailwindcss';\nimport autoprefixer from 'autoprefixer';\n"
        css = ("  css: { postcss: { plugins: [tailwindcss({ content: ['./index.html', './src/**/*.{vue,js,ts}'] }), "
               "autoprefixer()] } },\n")
    # a picture named by its absolute URL (`/images/x.jpg`) stays a URL: a folder published without public/ builds
    vue = "vue({ template: { transformAssetUrls: { includeAbsolute: false } } })"
    return f"{head}\nexport default defineConfig({{\n  plugins: [{vue}],\n{css}}});\n"


def _write_shell(app: AppFolder, root: Path) -> None:
    """index.html, src/main.js, src/App.vue where the folder has none; the stylesheets main.js loads."""
    src = root / "src"
    styles = [name for name in ("style.css", "index.css") if (src / name).is_file()]
    if app.tailwind and not any("@tailwind" in (src / s).read_text(encoding="utf-8", errors="replace") for s in styles):
        (src / "fsmc-tailwind.css").write_text("@tailwind base;\n@tailwind components;\n@tailwind utilities;\n")
        styles.append("fsmc-tailwind.css")
    shell = {root / "index.html": _index_html(app), src / "main.js": _main_js(app, styles),
             src / "App.vue": "<template>\n  <router-view />\n</template>\n"}
    for path, text in shell.items():
        if not path.exists():
            path.write_text(text, encoding="utf-8")
    (root / "fsmc.vite.config.mjs").write_text(_vite_config(app), encoding="utf-8")


# ---------------------------------------------------------------- packages and the build

def _message(log: Path, copy: Path, folder: Path | None) -> str:
    """The log without stack frames or colours; the files of the build's copy named in the app's own folder."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", log.read_text(encoding="utf-8", errors="replace"))
    text = text.replace(str(copy), str(folder)) if folder is not None else text
    lines = [line for line in text.strip().splitlines() if not _NOISE.match(line)][:LOG_LINES]
    return "\n  " + "\n  ".join(lines) if lines else ""


def _run(argv: list[str], cwd: Path, log: Path, what: str, folder: Path | None = None) -> None:
    """`argv` in `cwd`, its output to `log`; BuildError naming the command, with the log (`cwd` a copy of `folder`)."""
    with log.open("ab") as out:
        try:
            done = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  timeout=BUILD_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise BuildError(f"{what}: `{' '.join(argv)}` in {cwd} could not run: {err}") from None
    if done.returncode != 0:
        raise BuildError(f"{what}: `{' '.join(argv)}` in {cwd} failed (exit {done.returncode}); {log} says:"
                         f"{_message(log, cwd, folder)}")


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BuildError(f"{name} is needed to build an AutoWebWorld app but is not on PATH; install Node.js 20+")
    return found


def node_modules(app: AppFolder, cache: Path) -> Path:
    """Where the app's packages are: fsmc's template packages if they hold every one, else an install of its own."""
    packages = app.packages()
    if all((NODE_MODULES / name / "package.json").is_file() for name in packages):
        return NODE_MODULES
    digest = hashlib.sha256(json.dumps(packages, sort_keys=True).encode()).hexdigest()[:16]
    root = cache / f"awm-npm-{digest}"
    done = root / "node_modules" / ".fsmc-installed"
    if done.is_file():
        return root / "node_modules"
    root.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "fsmc-awm-app-packages", "private": True, "dependencies": packages}
    (root / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    _run([_tool("npm"), "install", "--no-audit", "--no-fund", "--loglevel=error"], root, root / "npm.log",
         f"installing the packages of {app.path}")
    done.write_text("")
    return root / "node_modules"


def _digest(app: AppFolder, modules: Path) -> str:
    h = hashlib.sha256(f"{SHELL}\0{modules}\0".encode())
    for path in sorted(p for p in app.path.rglob("*") if p.is_file() and not SKIPPED & set(p.relative_to(app.path).parts)):
        h.update(str(path.relative_to(app.path)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def declared_fields(web: str | Path) -> set[str]:
    """The signature fields the app's world (its fsm.json) declares, of the session and of every page."""
    path = Path(web) / "fsm.json"
    try:
        world = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise AppFolderError(f"{path}: not readable JSON: {err}") from None
    meta = world.get("meta") if isinstance(world, dict) else None
    schemas = [meta.get("global_signature_schema") if isinstance(meta, dict) else None]
    schemas += [p.get("signature_schema") for p in (world.get("pages") or []) if isinstance(p, dict)] \
        if isinstance(world, dict) and isinstance(world.get("pages"), list) else []
    return {str(name) for s in schemas if isinstance(s, dict) for name in s}


def build_app(web: str | Path, cache: Path | None = None) -> Path:
    """The app folder built: its dist/ (reused when the same folder was built before). AppFolderError when the folder
    is not such an app, BuildError when npm or Vite fails (the message names the command and ends with its log)."""
    app = read_app_folder(web)
    cache = cache or cache_home()
    modules = node_modules(app, cache)
    built = cache / f"awm-app-{_digest(app, modules)}"
    if (built / "dist" / "index.html").is_file():
        return built / "dist"
    work = built.with_name(built.name + f".tmp{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(app.path, work, ignore=shutil.ignore_patterns(*SKIPPED))
    _write_shell(app, work)
    (work / "node_modules").symlink_to(modules, target_is_directory=True)
    vite = modules / "vite" / "bin" / "vite.js"
    _run([_tool("node"), str(vite), "build", "--config", "fsmc.vite.config.mjs", "--logLevel", "warn"], work,
         work / "build.log", f"building {app.path}", app.path)
    shutil.rmtree(built, ignore_errors=True)
    work.rename(built)
    return built / "dist"


__all__ = ["AppFolder", "AppFolderError", "build_app", "declared_fields", "read_app_folder"]

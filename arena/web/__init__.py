"""The results in a browser: ``arena serve`` (a read-only web app over a database) and
``arena report --html`` (the same pages as static files).

A peer of the CLI at the top layer: it reads through the store, opened read-only, and renders
with :mod:`.render`'s templates; :mod:`.views` computes what each page shows, :mod:`.replay` the
replay viewer's frames, :mod:`.app` serves them (a large scope rated in a process of its
own, :mod:`.apart`), :mod:`.report` writes them out.  Needs the ``web`` extra
(``pip install -e '.[web]'``): Starlette, uvicorn and Jinja2.

May import the results and everything below them, but nothing that plays: no runner, executor,
referee or sandbox.
"""

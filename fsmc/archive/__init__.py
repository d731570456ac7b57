"""A site's archive: what is volatile in a request, the WARC, where requests go, the folder on disk, pinned time.

The room below both the capture (which writes archives) and the backends (which serve pages from them), so
neither imports the other for it. The modules, in the order a request flows through them: rules (what is
volatile in a request), warc (the archive, written and read with warcio), routes (where a page's requests go:
live and recorded, or the archive alone), pinning (time, randomness and animations held still), folder (the
capture on disk).
"""

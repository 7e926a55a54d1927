"""The catalogue's search index, outside the models: ``index`` (full-text tables and triggers),
``bulk_index`` (bulk loads a chunk at a time) and ``words`` (the vocabulary behind typo correction).
"""

"""Page helpers shared by app.py and the pages: the sidebar, per-session state, charts, tables, parts, teaching decks, job status. The serving machinery is in server/."""

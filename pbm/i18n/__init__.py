"""A reader's language, below every layer that decides facts: each language's voice (plurals,
numbers, dates, lists: `languages`) and the few rules of plain text every edge shares (`text`).
Which words a fact is said with is the edge's business (`pbm.words`)."""

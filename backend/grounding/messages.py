"""The fixed texts readers see when Lectern does not answer from the book (documented in
docs/architecture.md, "Fixed answers"; keep both in step)."""

NOT_IN_BOOK_MARKER = "NOT_IN_BOOK"

NOT_FOUND = (
    "I couldn't find this in the book, so I won't guess. "
    "These lessons are the closest to your question:"
)
NOT_FOUND_NO_SUGGESTIONS = "I couldn't find this in the book, so I won't guess."
# For a question about names the book never uses: "The book never mentions MPPI, so …".
NEVER_MENTIONED = (
    "The book never mentions {names}, so I won't guess. These lessons are the closest to your question:"
)
OUT_OF_SCOPE = (
    "That question is outside the scope of this book. I can help with questions about "
    "these topics:"
)
VAGUE = (
    "That's a broad question. This book covers the topics below; "
    "ask about one of them, or about a specific idea from a lesson:"
)
BOOK_CONTENTS = "This book is organised in these modules and lessons:"
BOOK_TOPICS = (
    "This book covers the topics below. Ask about one of them, or about a specific idea "
    "from a lesson:"
)
NEEDS_REVIEW_NOTE = "The book only partly covers this; check the cited passages."

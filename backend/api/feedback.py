"""POST /api/feedback: a reader's thumbs up or down on one answer."""

from datetime import UTC, datetime

from fastapi import APIRouter, HTTPException, Request

from backend.api.schemas import FeedbackRequest, Problem
from backend.metrics import FEEDBACK
from backend.store.models import Feedback

router = APIRouter(tags=["feedback"])


@router.post("/api/feedback", responses={400: {"model": Problem}, 404: {"model": Problem}})
async def feedback(request: Request, body: FeedbackRequest) -> dict[str, bool]:
    """Record whether an answer helped (and an optional comment)."""
    stored = await request.app.state.store.record_feedback(
        Feedback(
            message_id=body.message_id,
            helpful=body.helpful,
            comment=body.comment,
            created_at=datetime.now(UTC),
        )
    )
    if stored is False:
        raise HTTPException(404, f"no answer with message_id {body.message_id!r}")
    FEEDBACK.labels(str(body.helpful).lower()).inc()
    return {"ok": True}

"""POST /api/feedback: a reader's thumbs up or down on one answer."""

import hashlib
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, HTTPException, Request
from slowapi import Limiter

from backend.api.limits import budget, session_key
from backend.api.schemas import FeedbackRequest, Problem
from backend.config import Settings
from backend.metrics import FEEDBACK
from backend.store.models import Feedback


def feedback_router(limiter: Limiter, settings: Settings) -> APIRouter:
    votes = budget(limiter, "votes", settings.rate_limit_feedback, settings.rate_limit_per_address)
    router = APIRouter(tags=["feedback"], dependencies=[Depends(votes)])

    @router.post("/api/feedback", responses={
        400: {"model": Problem}, 404: {"model": Problem}, 429: {"model": Problem, "description": "Rate limited"},
    })
    async def feedback(request: Request, body: FeedbackRequest) -> dict[str, bool]:
        """Record whether an answer helped (and an optional comment). A reader (session, else
        address) has one vote per answer: voting again replaces it."""
        voter = f"{body.message_id}\n{session_key(request)}"
        stored = await request.app.state.store.record_feedback(
            Feedback(
                vote_id=hashlib.sha256(voter.encode()).hexdigest()[:32],
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

    return router

"""Imports every model so Alembic and create_all see the whole schema."""

from app.assessments.models import Accommodation, AssessmentAnswer, AssessmentAttempt
from app.authoring.models import AuthoringConflict, AuthoringDraft, ContentVersion, CourseEditor
from app.courses.models import CourseFolder
from app.db import Base
from app.deadlines.models import DeadlineExtension, LatePolicy, OfferingDue
from app.instructor.models import RegradeJob, ScoreOverride, SubmissionReport
from app.jobs.models import Job
from app.lti.models import (
    LtiContext,
    LtiDeployment,
    LtiGradePost,
    LtiLink,
    LtiMember,
    LtiNonce,
    LtiPlatform,
    LtiUser,
)
from app.offerings.models import Enrollment, Offering
from app.problems.models import ProblemReport
from app.progress.models import HintReveal, LessonRead, QuizAttempt
from app.submissions.models import Draft, Submission
from app.users.models import ApiToken, Role, User, WebSession

__all__ = [
    "Accommodation",
    "ApiToken",
    "AssessmentAnswer",
    "AssessmentAttempt",
    "AuthoringConflict",
    "AuthoringDraft",
    "Base",
    "ContentVersion",
    "CourseEditor",
    "CourseFolder",
    "DeadlineExtension",
    "Draft",
    "Enrollment",
    "HintReveal",
    "Job",
    "LatePolicy",
    "LessonRead",
    "LtiContext",
    "LtiDeployment",
    "LtiGradePost",
    "LtiLink",
    "LtiMember",
    "LtiNonce",
    "LtiPlatform",
    "LtiUser",
    "Offering",
    "OfferingDue",
    "ProblemReport",
    "QuizAttempt",
    "RegradeJob",
    "Role",
    "ScoreOverride",
    "Submission",
    "SubmissionReport",
    "User",
    "WebSession",
]

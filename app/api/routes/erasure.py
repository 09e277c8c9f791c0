"""DELETE /employees/{id}: the plain delete, or with ``erase=true`` the erasure with its proof
(app/services/erasure.py). It replaces the generic CRUD delete for employees only."""

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status
from fastapi.responses import JSONResponse

from app.api.deps import EngineDep, SettingsDep, WorkerDep, nudge
from app.api.schemas import beyond_schema
from app.api.types import JSON_MAX_ID
from app.embedding.tokens import count_tokens
from app.entities import EMPLOYEES
from app.services import erasure, records
from app.services.indexing import drain

router = APIRouter(prefix="/employees", tags=["employees"])
RowId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the employee's id")]


@router.delete(
    "/{row_id}", name="delete_employee", status_code=status.HTTP_204_NO_CONTENT,
    responses={
        200: {"description": "erase=true: erased, re-indexed, quoted copies redacted and proven (the job and its "
                             "proof in the body). Repeating the DELETE for an erased employee finishes a stopped "
                             "erasure, re-proves one whose proof failed, or reports a finished one"},
        404: {"description": "unknown employee id (and no erasure of it was ever started)"},
        409: {"description": "the employee owns documents: reassign them first, or erase with a document flag"},
        500: {"description": "erase=true: a string of the person is still found (the proof in the body says where);"
                             " the job keeps its place: repeat the DELETE once the cause is fixed"},
    },
    openapi_extra=beyond_schema("delete_documents and reassign_documents_to apply only with erase=true, and not "
                                "together; the new owner exists (rules across query parameters, and the database)"),
)
def delete_employee(
    row_id: RowId, engine: EngineDep, worker: WorkerDep, settings: SettingsDep,
    erase: Annotated[bool, Query(description="erase the employee's data and prove it")] = False,
    delete_documents: Annotated[bool, Query(description="with erase: delete the documents they own")] = False,
    reassign_documents_to: Annotated[int | None, Query(gt=0, le=JSON_MAX_ID, description="with erase: the documents' new owner")] = None,
) -> Response:
    if not erase:
        if delete_documents or reassign_documents_to is not None:
            raise ValueError("delete_documents and reassign_documents_to apply only with erase=true")  # 422
        records.delete_record(engine, EMPLOYEES, row_id)
        nudge(worker)
        return Response(status_code=status.HTTP_204_NO_CONTENT)
    # The running worker's run_once holds its drain lock, so no scheduled drain races the proof.
    drain_queue = worker.run_once if worker is not None else (
        lambda: drain(engine, count_tokens, settings.batch_size, settings.max_attempts))
    if engine.erasure_job(row_id) is not None:  # started before: finish, re-prove or report it
        result = erasure.resume_erasure(engine, row_id, drain_queue)
    else:
        result = erasure.erase_employee(engine, row_id, drain_queue, delete_documents, reassign_documents_to)
    return JSONResponse(result.to_dict(), status_code=status.HTTP_200_OK if result.ok else 500)

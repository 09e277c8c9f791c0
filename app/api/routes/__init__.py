"""One APIRouter per resource; app.api.main mounts them."""

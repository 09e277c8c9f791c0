output "minilm_onnx_par_url" {
  # access_uri is the "/p/<token>/n/<namespace>/b/<bucket>/o/<object>" part of the URL; the
  # provider documents the full URL as https://objectstorage.<region>.oraclecloud.com + access_uri.
  # OCI returns it only when the PAR is created (Terraform keeps it in state), so treat the state
  # as secret too. Anyone holding this URL can read the model until the PAR expires.
  description = "Full pre-authenticated URL of the uploaded .onnx, for RAG_ONNX_MODEL_URL / LOAD_ONNX_MODEL_CLOUD with a NULL credential."
  value       = "${local.object_storage_endpoint}${oci_objectstorage_preauthrequest.minilm_onnx_read.access_uri}"
  sensitive   = true
}

output "minilm_onnx_object_name" {
  description = "Name of the uploaded .onnx object in the bucket."
  value       = oci_objectstorage_object.minilm_onnx.object
}

output "minilm_onnx_par_expires" {
  description = "When the pre-authenticated request stops working (RFC 3339)."
  value       = oci_objectstorage_preauthrequest.minilm_onnx_read.time_expires
}

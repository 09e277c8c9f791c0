variable "region" {
  description = "OCI region of the bucket, e.g. \"eu-frankfurt-1\". Also used to build the Object Storage URL of the PAR."
  type        = string
}

variable "compartment_ocid" {
  description = "OCID of a compartment (or the tenancy) in the tenancy that owns the bucket; used only to look up the Object Storage namespace when `namespace` is not given."
  type        = string

  validation {
    condition     = can(regex("^ocid1\\.(compartment|tenancy)\\.", var.compartment_ocid))
    error_message = "compartment_ocid must be a compartment or tenancy OCID (ocid1.compartment... or ocid1.tenancy...)."
  }
}

variable "bucket_name" {
  description = "Name of an EXISTING Object Storage bucket (private is fine: the database reads the model through the pre-authenticated request, not through bucket access)."
  type        = string
}

variable "namespace" {
  description = "Object Storage namespace of the tenancy (`oci os ns get`). Leave null to look it up from compartment_ocid."
  type        = string
  default     = null
}

variable "bundle_url" {
  description = <<-EOT
    Download address of Oracle's augmented all_MiniLM_L12_v2 bundle (all_MiniLM_L12_v2_augmented.zip).
    Oracle serves it through an OCI pre-authenticated request that ROTATES: if the download fails with
    401/404, take the current address from Oracle's list of pretrained ONNX models for AI Vector Search
    (https://docs.oracle.com/pls/topic/lookup?ctx=en/database/oracle/oracle-database/26/vecse&id=oml_ai_models_object_storage)
    and pass it with -var bundle_url=... (see README.md, "Rotating the bundle URL").
  EOT
  type        = string
  default     = "https://adwc4pm.objectstorage.us-ashburn-1.oci.customer-oci.com/p/TtH6hL2y25EypZ0-rrczRZ1aXp7v1ONbRBfCiT-BDBN8WLKQ3lgyW6RxCfIFLdA6/n/adwc4pm/b/OML-ai-models/o/all_MiniLM_L12_v2_augmented.zip"

  validation {
    condition     = can(regex("^https://", var.bundle_url))
    error_message = "bundle_url must be an https:// address."
  }
}

variable "bundle_sha256" {
  description = "Optional expected SHA-256 (hex) of the downloaded zip. Empty = not checked (the download step prints the actual hash so it can be pinned on the next run). A mismatch fails the apply."
  type        = string
  default     = ""

  validation {
    condition     = var.bundle_sha256 == "" || can(regex("^[0-9a-fA-F]{64}$", var.bundle_sha256))
    error_message = "bundle_sha256 must be empty or 64 hex characters."
  }
}

variable "object_name" {
  description = "Name of the uploaded .onnx object in the bucket (the one object the PAR grants read access to)."
  type        = string
  default     = "all_MiniLM_L12_v2.onnx"
}

variable "par_lifetime_hours" {
  description = "Lifetime of the pre-authenticated request in hours (default one year). The expiry is fixed when the PAR is created; see README.md to renew it."
  type        = number
  default     = 8760

  validation {
    condition     = var.par_lifetime_hours > 0 && floor(var.par_lifetime_hours) == var.par_lifetime_hours
    error_message = "par_lifetime_hours must be a positive whole number of hours."
  }
}

variable "object_storage_endpoint" {
  description = "Object Storage endpoint used to turn the PAR's access_uri into a full URL. Null = https://objectstorage.<region>.oraclecloud.com (commercial realm); set it for other realms."
  type        = string
  default     = null
}

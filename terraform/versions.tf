terraform {
  # terraform_data needs 1.4, plantimestamp() needs 1.5.
  required_version = ">= 1.5"

  required_providers {
    oci = {
      source = "oracle/oci"
      # Only long-standing attributes are used (object_name/access_uri on the PAR,
      # source on the object), present in both the 6.x and 7.x lines. The upper
      # bound keeps a future major release from being picked up unreviewed;
      # commit the .terraform.lock.hcl that `terraform init` writes.
      version = ">= 6.0, < 8.0"
    }
    null = {
      # Pinned by project policy (the two allowed providers). Nothing here uses
      # null_resource today: the download step is the built-in terraform_data.
      source  = "hashicorp/null"
      version = "~> 3.2"
    }
  }
}

# Authentication comes from the operator's ~/.oci/config (DEFAULT profile) or the
# OCI_* / TF_VAR_* environment: nothing credential-like is a Terraform input here.
provider "oci" {
  region = var.region
}

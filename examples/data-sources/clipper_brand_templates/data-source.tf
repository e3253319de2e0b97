data "clipper_brand_templates" "presets" {
  type = "preset"
}

output "preset_template_ids" {
  value = [for t in data.clipper_brand_templates.presets.templates : t.template_id]
}

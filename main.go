// Command terraform-provider-clipper serves the clipper Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/clipperhq/terraform-provider-clipper/internal/parentwatch"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider"
)

// Format example configurations and generate the registry docs from the schema and templates.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name clipper

// version is set by goreleaser through -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	if !debug {
		// A Terraform that crashes does not stop its providers: go when it does.
		parentwatch.Watch(context.Background(), time.Second, func() {
			log.Print("terraform-provider-clipper: Terraform, the parent process, is gone; exiting")
			os.Exit(1)
		})
	}
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/clipperhq/clipper",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}

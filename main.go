// Command terraform-provider-clipper serves the clipper Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

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
	// tf6server.Serve, as providerserver.Serve would, but with provider.Server's
	// diagnostics placed where Terraform shows their line.
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	server := provider.Server(version)
	err := tf6server.Serve("registry.terraform.io/clipperhq/clipper", func() tfprotov6.ProviderServer {
		s, err := server()
		if err != nil {
			log.Fatal(err.Error())
		}
		return s
	}, opts...)
	if err != nil {
		log.Fatal(err.Error())
	}
}

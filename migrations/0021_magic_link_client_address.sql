ALTER TABLE "magic_links" ADD COLUMN "client_address" text;--> statement-breakpoint
CREATE INDEX "magic_links_client_address_idx" ON "magic_links" USING btree ("client_address","created_at");
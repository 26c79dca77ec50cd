/**
 * A movie API whose operations share a request's words between them, and two bigger APIs each
 * with one operation that matches a word of it (a theatre's cast, a shop's reviews) among
 * operations that match nothing: API evidence's fixture, made by the caller's `op` (a definition
 * for the unit tests, an import list item for the service's).
 */
export function apiEvidenceCatalog<T>(op: (api: string, name: string, description: string) => T): T[] {
  return [
    op("movies", "searchMovie", "Search movies by title."),
    op("movies", "movieCredits", "Cast and crew of a movie: the cast list."),
    op("movies", "movieReviews", "User reviews of a movie."),
    op("theatre", "showCast", "Cast of a theatre show: cast members, cast roles, cast photos."),
    ...["bookSeat", "listVenues", "cancelBooking", "venueMap", "ticketPrices", "seatPlan"].map((n) => op("theatre", n, `${n} for a venue.`)),
    op("shop", "productReviews", "Customer reviews of a product: review text, review stars, review date."),
    ...["addToCart", "checkout", "listOrders", "trackParcel", "applyCoupon", "wishlist", "giftCards", "returns", "storeHours"].map((n) =>
      op("shop", n, `${n} in the store.`),
    ),
  ];
}

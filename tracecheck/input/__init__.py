"""Input: files, directories, standard input and archives as records with line numbers;
warnings that name file and line; safe output files (written whole, never over an
input); the JSON Schemas of the native format and the report."""
